package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.Medians;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table of {@code peer-suite.sh}: the peer's {@code ByteBufAllocatorAllocPatternBenchmark} (JMH JSON of one or more
 * runs, each with the allocator types MAGALLOC, MIMALLOC, ADAPTIVE and POOLED), one row per pattern, live count and
 * read/write setting. Each ratio is magalloc's ns/op over the other allocator's in the same run; with several runs the
 * row gives the median of the runs' ratios, and the goal (at most 0.80x the peer and 0.70x adaptive in every cell) is
 * judged on those medians.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.magalloc.bench.runner.PeerSuiteTable run1.json [run2.json ...]}
 */
public final class PeerSuiteTable {
    static final double PEER_GOAL = 0.80;
    static final double ADAPTIVE_GOAL = 0.70;

    private PeerSuiteTable() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: PeerSuiteTable RUN.json [RUN.json ...] (JMH JSON of the peer's suite)");
            System.exit(2);
        }
        List<List<BenchResult>> runs = new ArrayList<>();
        for (String file : args) {
            runs.add(BenchResult.load(Path.of(file)));
        }
        print(runs, System.out);
    }

    /** Prints the table of {@code runs} (each the rows of one JMH run); returns the cells that meet the goal. */
    static int print(List<List<BenchResult>> runs, PrintStream out) {
        // cell -> ratios over the runs: [0] over the peer, [1] over adaptive, [2] over pooled
        Map<String, List<double[]>> cells = new TreeMap<>();
        Map<String, double[]> lastScores = new TreeMap<>();
        for (List<BenchResult> rows : runs) {
            Map<String, Map<String, Double>> run = new TreeMap<>();
            for (BenchResult row : rows) {
                String cell = String.format(Locale.ROOT, "%-12s %6s live  rw=%-5s  %d thr", row.param("sizePattern"),
                    row.param("MAX_LIVE_BUFFERS"), row.param("enableReadWrite"), row.jmhThreads());
                run.computeIfAbsent(cell, k -> new TreeMap<>()).put(row.param("allocatorType"), row.score());
            }
            run.forEach((cell, scores) -> {
                double[] s = {scores.getOrDefault("MAGALLOC", Double.NaN), scores.getOrDefault("MIMALLOC", Double.NaN),
                    scores.getOrDefault("ADAPTIVE", Double.NaN), scores.getOrDefault("POOLED", Double.NaN)};
                cells.computeIfAbsent(cell, k -> new ArrayList<>()).add(new double[] {s[0] / s[1], s[0] / s[2],
                    s[0] / s[3]});
                lastScores.put(cell, s);
            });
        }
        TextTable table = new TextTable("cell", "ns/op (last run): magalloc / peer / adaptive / pooled",
            "/ peer", "/ adaptive", "/ pooled", "goal");
        int met = 0;
        for (Map.Entry<String, List<double[]>> cell : cells.entrySet()) {
            double peer = median(cell.getValue(), 0);
            double adaptive = median(cell.getValue(), 1);
            double pooled = median(cell.getValue(), 2);
            boolean goal = peer <= PEER_GOAL && adaptive <= ADAPTIVE_GOAL;
            met += goal ? 1 : 0;
            double[] s = lastScores.get(cell.getKey());
            table.add(cell.getKey(), String.format(Locale.ROOT, "%.2f / %.2f / %.2f / %.2f", s[0], s[1], s[2], s[3]),
                ratio(peer), ratio(adaptive), ratio(pooled), goal ? "met" : "not met");
        }
        table.print(out);
        out.printf(Locale.ROOT, "%d run(s); ratios are %s; goal (<= %.2fx the peer and <= %.2fx adaptive): met in %d"
            + " of %d cells%n", runs.size(), runs.size() == 1 ? "that run's" : "the median of the runs' ratios",
            PEER_GOAL, ADAPTIVE_GOAL, met, cells.size());
        return met;
    }

    private static double median(List<double[]> runs, int index) {
        List<Double> values = new ArrayList<>();
        for (double[] run : runs) {
            values.add(run[index]);
        }
        return Medians.of(values);
    }

    private static String ratio(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.2fx", value);
    }
}
