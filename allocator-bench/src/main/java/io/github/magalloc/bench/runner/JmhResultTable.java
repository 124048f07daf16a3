package io.github.magalloc.bench.runner;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The side-by-side table of JMH results: one plain-text row per benchmark configuration and allocator, read from
 * JMH's JSON files, with each score's ratio to Netty adaptive's in the same configuration. (The end-to-end harness
 * has a table of its own, {@code EndToEndResultTable}: markdown rows of whole server runs, not JMH scores.)
 * Re-render any saved run with
 * {@code java -cp allocator-bench/target/benchmarks.jar io.github.magalloc.bench.runner.JmhResultTable FILE.json...}.
 */
public final class JmhResultTable {
    static final String BASELINE = "ADAPTIVE";

    private final List<BenchResult> results;
    private final Map<String, BenchResult> baselines = new HashMap<>();

    JmhResultTable(List<BenchResult> results) {
        this.results = new ArrayList<>(results);
        this.results.sort(Comparator.comparing(BenchResult::name).thenComparing(BenchResult::workers)
                .thenComparing(BenchResult::otherParams).thenComparing(r -> order(r.allocator())));
        for (BenchResult r : results) {
            if (r.allocator().equals(BASELINE)) {
                baselines.put(r.configKey(), r);
            }
        }
    }

    public static void main(String[] args) throws IOException {
        List<BenchResult> all = new ArrayList<>();
        for (String file : args) {
            all.addAll(BenchResult.load(Path.of(file)));
        }
        JmhResultTable table = new JmhResultTable(all);
        table.print(System.out);
        System.out.println();
        new Goals(all).print(System.out);
    }

    /** Score divided by Netty adaptive's score for the same configuration, NaN when there is none. */
    double ratioToBaseline(BenchResult r) {
        BenchResult base = baselines.get(r.configKey());
        return base == null ? Double.NaN : r.score() / base.score();
    }

    /** Score of {@code r} divided by allocator {@code other}'s in the same configuration, NaN when there is none. */
    static double ratio(List<BenchResult> results, BenchResult r, String other) {
        BenchResult o = sameConfig(results, r, other);
        return o == null ? Double.NaN : r.score() / o.score();
    }

    /** The row of allocator {@code allocator} in the configuration of {@code r}, or null. */
    static BenchResult sameConfig(List<BenchResult> results, BenchResult r, String allocator) {
        for (BenchResult o : results) {
            if (o.allocator().equals(allocator) && o.configKey().equals(r.configKey())) {
                return o;
            }
        }
        return null;
    }

    void print(PrintStream out) {
        out.println("vs ADAPTIVE = score / Netty adaptive's score in the same configuration. "
                + "ns/op (avgt): lower is better, < 1 beats adaptive. ops/us (thrpt): higher is better, > 1 beats it.");
        out.println("B/op = gc.alloc.rate.norm from -prof gc. used MiB = allocator used memory (heap+direct), live MiB = "
                + "bytes asked for by live buffers, at the end of each iteration (AllocPattern and Pinning only).");
        TextTable table = new TextTable("benchmark", "threads", "t", "params", "allocator", "score", "error",
                "units", "B/op", "vs ADAPTIVE", "better", "used MiB/live MiB", "used/live");
        for (BenchResult r : results) {
            double used = r.secondary("mem.used");
            double live = r.secondary("mem.live");
            table.add(r.name(), r.workers(), String.valueOf(r.jmhThreads()), r.otherParams(), r.allocator(),
                    fmt(r.score()), Double.isNaN(r.error()) ? "-" : "±" + fmt(r.error()), r.unit(),
                    fmt(r.secondary("gc.alloc.rate.norm")), fmt(ratioToBaseline(r)) + "x",
                    r.higherIsBetter() ? "higher" : "lower",
                    Double.isNaN(used) ? "-" : fmt(used / (1 << 20)) + "/" + fmt(live / (1 << 20)),
                    Double.isNaN(used) ? "-" : fmt(r.secondary("mem.used/live")) + "x");
        }
        table.print(out);
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a != 0 && a < 0.01) {
            return String.format(Locale.ROOT, "%.1e", v);
        }
        return String.format(Locale.ROOT, a >= 100 ? "%.1f" : "%.2f", v);
    }

    private static int order(String allocator) {
        switch (allocator) {
            case "MAGALLOC": return 0;
            case "ADAPTIVE": return 1;
            case "POOLED": return 2;
            case "POOLED_ALL_THREADS": return 3;
            default: return 4;
        }
    }
}
