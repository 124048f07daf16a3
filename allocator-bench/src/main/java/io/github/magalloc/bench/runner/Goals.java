package io.github.magalloc.bench.runner;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Checks the performance goals (the table in docs/benchmarks.md) against the measured rows and prints one line per
 * configuration: the measured value, the bound, and met / NOT met. A goal with no matching rows says "not
 * measured". Nothing here is a number from anywhere but the results; short runs make the verdicts indicative only.
 */
final class Goals {
    private static final String MAGALLOC = "MAGALLOC";

    private final List<BenchResult> results;
    private int met;
    private int missed;
    private int unmeasured;

    Goals(List<BenchResult> results) {
        this.results = results;
    }

    void print(PrintStream out) {
        out.println("Goals (docs/benchmarks.md), per measured configuration:");
        Set<String> headline = Set.of("SOCKET_PROXY", "API_GATEWAY");
        Set<String> lives = Set.of("1024", "8192"); // 65,536: G10

        section(out, "G1 AllocPattern SOCKET_PROXY/API_GATEWAY, 1,024/8,192 live: "
                        + "<= 0.60x adaptive and <= 0.35x pooled ns/op",
                b -> b.name().equals("AllocPattern") && headline.contains(b.param("distribution"))
                        && lives.contains(b.param("maxLive")),
                r -> {
                    check(out, r, "vs ADAPTIVE", JmhResultTable.ratio(results, r, "ADAPTIVE"), 0.60, false);
                    check(out, r, "vs POOLED", JmhResultTable.ratio(results, r, "POOLED"), 0.35, false);
                });
        section(out, "G2 FixedSize 256 B direct: <= 0.60x adaptive ns/op",
                b -> b.name().equals("FixedSize") && "256".equals(b.param("size")) && "true".equals(b.param("direct")),
                r -> check(out, r, "vs ADAPTIVE", JmhResultTable.ratio(results, r, "ADAPTIVE"), 0.60, false));
        // Cross-thread forks are bimodal on a shared machine (docs/benchmarks.md): a mean over forks is mostly how
        // many landed in the fast mode, so the cross-thread goals use the median fork and the worst one.
        section(out, "G3 CrossThread up to the size classes: producer throughput, median of forks >= 2x adaptive's; "
                        + "no fork below adaptive's median",
                b -> b.name().startsWith("CrossThread") && !isLarge(b),
                r -> {
                    check(out, r, "median fork vs ADAPTIVE", medianForkRatio(r), 2.0, true);
                    check(out, r, "worst fork vs ADAPTIVE median", worstForkRatio(r), 1.0, true);
                });
        section(out, "G4 Plain threads: magalloc no slower than adaptive in any benchmark (cross-thread: median of "
                        + "forks)",
                b -> b.workers().equals("PLAIN"),
                r -> {
                    if (r.name().startsWith("CrossThread")) {
                        check(out, r, "median fork vs ADAPTIVE", medianForkRatio(r), 1.0, true);
                    } else {
                        check(out, r, "vs ADAPTIVE", JmhResultTable.ratio(results, r, "ADAPTIVE"), 1.0,
                                r.higherIsBetter());
                    }
                });
        section(out, "G5 gc.alloc.rate.norm < 1 B/op on every pooled magalloc path "
                        + "(rows above magalloc's largest pooled size are expected to miss; virtual-thread rows: G9)",
                b -> !b.workers().equals("VIRTUAL"),
                r -> {
                    double norm = r.secondary("gc.alloc.rate.norm");
                    if (Double.isNaN(norm)) {
                        line(out, r, "B/op", "not measured (run with -prof gc)");
                        unmeasured++;
                    } else {
                        verdict(out, r, "B/op", norm, norm < 1.0, "< 1");
                    }
                });
        section(out, "G6 AllocPattern used memory <= adaptive's; at 8,192 and 65,536 live <= 1.3x live bytes",
                b -> b.name().equals("AllocPattern"),
                r -> {
                    if (Double.isNaN(r.secondary("mem.used"))) {
                        line(out, r, "used", "not measured (run with -prof io.github.magalloc.bench.FootprintProfiler)");
                        unmeasured++;
                        return;
                    }
                    if (r.secondary("mem.used") < r.secondary("mem.live")) {
                        // Live buffers occupy memory: a pool reporting less is not counting them.
                        missed++;
                        line(out, r, "used/live", JmhResultTable.fmt(r.secondary("mem.used/live"))
                                + " NOT met: INVALID metric, used memory below the live bytes");
                        return;
                    }
                    check(out, r, "used vs ADAPTIVE", usedRatioToAdaptive(r), 1.0, false);
                    if ("8192".equals(r.param("maxLive")) || "65536".equals(r.param("maxLive"))) {
                        check(out, r, "used/live", r.secondary("mem.used/live"), 1.3, false);
                    }
                });
        section(out, "G7 FixedSize: <= 1.5x the floor (FloorBenchmark: the least work of any pooled allocator)",
                b -> b.name().equals("FixedSize") && !isLarge(b),
                r -> {
                    check(out, r, "vs FLOOR", floorRatio(r), 1.5, false);
                    BenchResult adaptive = JmhResultTable.sameConfig(results, r, "ADAPTIVE");
                    if (adaptive != null && !Double.isNaN(floorRatio(adaptive))) {
                        line(out, adaptive, "ADAPTIVE vs FLOOR", JmhResultTable.fmt(floorRatio(adaptive))
                                + " (for comparison)");
                    }
                });
        section(out, "G8 Pinning (16 KiB-1 MiB, 1 in 100 lives 1,000x longer): used <= 1.5x live bytes",
                b -> b.name().equals("Pinning"),
                r -> check(out, r, "used/live", r.secondary("mem.used/live"), 1.5, false));
        section(out, "G10 Large buffers: FixedSize above the size classes and AllocPattern at 65,536 live <= 0.60x "
                        + "adaptive on event loops, <= 1x on plain threads; CrossThread above the size classes: "
                        + "median fork >= adaptive's",
                Goals::isLarge,
                r -> {
                    if (r.name().startsWith("CrossThread")) {
                        check(out, r, "median fork vs ADAPTIVE", medianForkRatio(r), 1.0, true);
                    } else {
                        double limit = r.workers().equals("EVENT_LOOP") ? 0.60 : 1.0;
                        check(out, r, "vs ADAPTIVE", JmhResultTable.ratio(results, r, "ADAPTIVE"), limit, false);
                    }
                });
        // Netty's microbenchmark harness threads (and the peer's suite, which runs on them) refuse every task, so
        // magalloc's maintenance runs on their slow paths and their link to the magazine stays weak: that must cost
        // no more than an event loop's thread does.
        section(out, "G12 Harness threads: magalloc's ratio to adaptive within 1.05x of its ratio on event loops "
                        + "(FixedSize 256 B; AllocPattern 1,024/8,192 live)",
                b -> b.workers().equals("HARNESS") && (b.name().equals("FixedSize") && "256".equals(b.param("size"))
                        || b.name().equals("AllocPattern") && lives.contains(b.param("maxLive"))),
                r -> check(out, r, "ratio vs EVENT_LOOP's", harnessOverEventLoop(r), 1.05, false));
        // A virtual thread's own start and end allocate several hundred bytes whatever the allocator: the goal is
        // to add no more to that than adaptive does, and to take no longer per task than the faster Netty pool.
        section(out, "G9 VirtualThread (a task per virtual thread): heap B/task <= adaptive's, "
                        + "ns/task <= the faster of adaptive and pooled",
                b -> b.workers().equals("VIRTUAL"),
                r -> {
                    BenchResult adaptive = JmhResultTable.sameConfig(results, r, "ADAPTIVE");
                    check(out, r, "B/task vs ADAPTIVE", adaptive == null ? Double.NaN
                            : r.secondary("gc.alloc.rate.norm") / adaptive.secondary("gc.alloc.rate.norm"), 1.0, false);
                    check(out, r, "vs ADAPTIVE", JmhResultTable.ratio(results, r, "ADAPTIVE"), 1.0, false);
                    check(out, r, "vs POOLED", JmhResultTable.ratio(results, r, "POOLED"), 1.0, false);
                });
        out.printf(Locale.ROOT, "Goal checks: %d met, %d NOT met, %d not measured%n", met, missed, unmeasured);
    }

    /** The rows of G10: fixed sizes above the largest size class (32 KiB), and the allocation pattern's 65,536 live. */
    private static boolean isLarge(BenchResult b) {
        if (b.name().equals("AllocPattern")) {
            return "65536".equals(b.param("maxLive"));
        }
        if (b.name().equals("FixedSize") || b.name().startsWith("CrossThread")) {
            String size = b.param("size");
            return size != null && size.chars().allMatch(Character::isDigit) && Integer.parseInt(size) > 32 * 1024;
        }
        return false;
    }

    /**
     * Magalloc's ratio to adaptive on harness row {@code r} over its ratio on the event-loop row of the same benchmark
     * and params; NaN without one.
     */
    private double harnessOverEventLoop(BenchResult r) {
        for (BenchResult o : results) {
            if (o.allocator().equals(MAGALLOC) && o.workers().equals("EVENT_LOOP")
                    && o.benchmark().equals(r.benchmark()) && o.jmhThreads() == r.jmhThreads()
                    && o.otherParams().equals(r.otherParams())) {
                return JmhResultTable.ratio(results, r, "ADAPTIVE") / JmhResultTable.ratio(results, o, "ADAPTIVE");
            }
        }
        return Double.NaN;
    }

    /** Score of {@code r} divided by the floor's with the same size and thread count, NaN without a floor row. */
    private double floorRatio(BenchResult r) {
        for (BenchResult o : results) {
            if (o.name().equals("Floor") && o.jmhThreads() == r.jmhThreads()
                    && o.param("size").equals(r.param("size"))) {
                return r.score() / o.score();
            }
        }
        return Double.NaN;
    }

    /** Median fork of {@code r} over adaptive's median fork in the same configuration; NaN without forks. */
    private double medianForkRatio(BenchResult r) {
        BenchResult adaptive = JmhResultTable.sameConfig(results, r, "ADAPTIVE");
        return adaptive == null ? Double.NaN : r.medianOfForks() / adaptive.medianOfForks();
    }

    /** Worst fork of {@code r} over adaptive's median fork in the same configuration; NaN without forks. */
    private double worstForkRatio(BenchResult r) {
        BenchResult adaptive = JmhResultTable.sameConfig(results, r, "ADAPTIVE");
        return adaptive == null ? Double.NaN : r.worstFork() / adaptive.medianOfForks();
    }

    private double usedRatioToAdaptive(BenchResult r) {
        BenchResult adaptive = JmhResultTable.sameConfig(results, r, "ADAPTIVE");
        return adaptive == null ? Double.NaN : r.secondary("mem.used") / adaptive.secondary("mem.used");
    }

    private void section(PrintStream out, String title, Predicate<BenchResult> filter, Consumer<BenchResult> body) {
        out.println(title);
        List<BenchResult> rows = magalloc(filter);
        if (rows.isEmpty()) {
            out.println("    not measured (no MAGALLOC row for this goal)");
            unmeasured++;
        }
        rows.forEach(body);
    }

    private List<BenchResult> magalloc(Predicate<BenchResult> filter) {
        return results.stream().filter(r -> r.allocator().equals(MAGALLOC)).filter(filter).toList();
    }

    private void check(PrintStream out, BenchResult r, String what, double value, double bound, boolean atLeast) {
        if (Double.isNaN(value)) {
            line(out, r, what, "not measured (no comparable row)");
            unmeasured++;
            return;
        }
        verdict(out, r, what, value, atLeast ? value >= bound : value <= bound,
                (atLeast ? ">= " : "<= ") + JmhResultTable.fmt(bound) + "x");
    }

    private void verdict(PrintStream out, BenchResult r, String what, double value, boolean ok, String bound) {
        if (ok) {
            met++;
        } else {
            missed++;
        }
        line(out, r, what, String.format(Locale.ROOT, "%s (goal %s) %s", JmhResultTable.fmt(value), bound,
                ok ? "met" : "NOT met"));
    }

    private static void line(PrintStream out, BenchResult r, String what, String text) {
        out.printf(Locale.ROOT, "    %-20s %-10s t=%d %-55s %s: %s%n", r.name(), r.workers(), r.jmhThreads(),
                r.otherParams(), what, text);
    }
}
