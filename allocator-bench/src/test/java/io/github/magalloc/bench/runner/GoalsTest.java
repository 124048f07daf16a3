package io.github.magalloc.bench.runner;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static io.github.magalloc.bench.runner.JsonTest.metric;
import static io.github.magalloc.bench.runner.JsonTest.row;
import static org.assertj.core.api.Assertions.assertThat;

class GoalsTest {
    private static List<BenchResult> parse(String... rows) {
        return ((List<?>) Json.parse("[" + String.join(",", rows) + "]")).stream()
                .map(o -> BenchResult.of((Map<?, ?>) o)).toList();
    }

    private static String fixed(String allocator, double ns, double bytesPerOp) {
        return row("FixedSizeBenchmark.allocRelease", "avgt", allocator, ", \"size\" : \"256\"", ns, "ns/op",
                metric("gc.alloc.rate.norm", bytesPerOp, "B/op"));
    }

    private static String pattern(String allocator, double ns, double used, double live) {
        return row("AllocPatternBenchmark.allocRelease", "avgt", allocator,
                ", \"distribution\" : \"SOCKET_PROXY\", \"maxLive\" : \"8192\"", ns, "ns/op",
                metric("gc.alloc.rate.norm", 0.0, "B/op") + "," + metric("mem.used", used, "B") + ","
                        + metric("mem.live", live, "B") + "," + metric("mem.used/live", used / live, "x"));
    }

    private static String print(List<BenchResult> results) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new Goals(results).print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void fixedSizeGoalIsMetOnlyAtOrBelowSixtyPercentOfAdaptive() {
        assertThat(print(parse(fixed("MAGALLOC", 12.0, 0.0), fixed("ADAPTIVE", 20.0, 0.0))))
                .contains("vs ADAPTIVE: 0.60 (goal <= 0.60x) met");
        assertThat(print(parse(fixed("MAGALLOC", 13.0, 0.0), fixed("ADAPTIVE", 20.0, 0.0))))
                .contains("vs ADAPTIVE: 0.65 (goal <= 0.60x) NOT met");
    }

    private static String floor(double ns) {
        return row("FloorBenchmark.allocRelease", "avgt", "FLOOR", ", \"size\" : \"256\"", ns, "ns/op",
                metric("gc.alloc.rate.norm", 0.0, "B/op"));
    }

    @Test
    void fixedSizeIsComparedWithTheFloorOfTheSameSize() {
        String out = print(parse(fixed("MAGALLOC", 12.0, 0.0), fixed("ADAPTIVE", 20.0, 0.0), floor(8.0)));
        assertThat(out).contains("vs FLOOR: 1.50 (goal <= 1.50x) met");
        assertThat(out).contains("ADAPTIVE vs FLOOR: 2.50 (for comparison)");
        out = print(parse(fixed("MAGALLOC", 12.1, 0.0), floor(8.0)));
        assertThat(out).contains("vs FLOOR: 1.51 (goal <= 1.50x) NOT met");
        assertThat(print(parse(fixed("MAGALLOC", 12.0, 0.0)))).contains("vs FLOOR: not measured");
    }

    /** The same row, measured on harness threads. */
    private static String onHarness(String row) {
        return row.replace("\"threads\" : \"EVENT_LOOP\"", "\"threads\" : \"HARNESS\"");
    }

    @Test
    void harnessRowsAreJudgedByTheirRatioOverTheEventLoopRatio() {
        String loop = fixed("MAGALLOC", 12.0, 0.0);
        String loopAdaptive = fixed("ADAPTIVE", 20.0, 0.0); // 0.60x on the event loop
        String harnessAdaptive = onHarness(fixed("ADAPTIVE", 20.0, 0.0));
        assertThat(print(parse(loop, loopAdaptive, onHarness(fixed("MAGALLOC", 12.5, 0.0)), harnessAdaptive)))
                .contains("ratio vs EVENT_LOOP's: 1.04 (goal <= 1.05x) met");
        assertThat(print(parse(loop, loopAdaptive, onHarness(fixed("MAGALLOC", 13.0, 0.0)), harnessAdaptive)))
                .contains("ratio vs EVENT_LOOP's: 1.08 (goal <= 1.05x) NOT met");
        assertThat(print(parse(onHarness(fixed("MAGALLOC", 12.0, 0.0)), harnessAdaptive)))
                .contains("ratio vs EVENT_LOOP's: not measured");
    }

    @Test
    void pinningGoalBoundsUsedMemoryByOneAndAHalfTimesLive() {
        String ok = row("PinningBenchmark.allocRelease", "avgt", "MAGALLOC", "", 900.0, "ns/op",
                metric("mem.used/live", 1.4, "x"));
        String bad = row("PinningBenchmark.allocRelease", "avgt", "MAGALLOC", "", 900.0, "ns/op",
                metric("mem.used/live", 2.4, "x"));
        assertThat(print(parse(ok))).contains("used/live: 1.40 (goal <= 1.50x) met");
        assertThat(print(parse(bad))).contains("used/live: 2.40 (goal <= 1.50x) NOT met");
    }

    @Test
    void allocationPerOpGoalFailsAtOneByte() {
        assertThat(print(parse(fixed("MAGALLOC", 12.0, 1.0), fixed("ADAPTIVE", 20.0, 0.0))))
                .contains("B/op: 1.00 (goal < 1) NOT met");
    }

    @Test
    void footprintGoalsCompareWithAdaptiveAndLiveBytes() {
        String out = print(parse(pattern("MAGALLOC", 50, 30.0, 20.0), pattern("ADAPTIVE", 100, 25.0, 20.0),
                pattern("POOLED", 100, 28.0, 20.0)));
        assertThat(out).contains("used vs ADAPTIVE: 1.20 (goal <= 1.00x) NOT met");
        assertThat(out).contains("used/live: 1.50 (goal <= 1.30x) NOT met");
        assertThat(out).contains("vs ADAPTIVE: 0.50 (goal <= 0.60x) met");
        assertThat(out).contains("vs POOLED: 0.50 (goal <= 0.35x) NOT met");
    }

    @Test
    void usedMemoryBelowLiveBytesIsReportedAsAnInvalidMetric() {
        String out = print(parse(pattern("MAGALLOC", 50, 0.0, 20.0), pattern("ADAPTIVE", 100, 25.0, 20.0)));
        assertThat(out).contains("used/live: 0.00 NOT met: INVALID metric, used memory below the live bytes");
        assertThat(out).doesNotContain("used vs ADAPTIVE");
    }

    @Test
    void goalsWithoutRowsSayNotMeasured() {
        String out = print(parse(fixed("MAGALLOC", 12.0, 0.0)));
        assertThat(out).contains("vs ADAPTIVE: not measured (no comparable row)");
        assertThat(out).contains("G3 CrossThread up to the size classes: producer throughput, median of forks >= 2x adaptive's; no fork "
                + "below adaptive's median\n    not measured (no MAGALLOC row for this goal)");
    }

    private static String fixedLarge(String allocator, double ns) {
        return row("FixedSizeBenchmark.allocRelease", "avgt", allocator, ", \"size\" : \"65536\"", ns, "ns/op",
                metric("gc.alloc.rate.norm", 0.0, "B/op"));
    }

    @Test
    void sizesAboveTheSizeClassesAreCheckedByTheLargeBufferGoalOnly() {
        String met = print(parse(fixedLarge("MAGALLOC", 30.0), fixedLarge("ADAPTIVE", 50.0)));
        String g10 = met.substring(met.indexOf("G10 "));
        assertThat(g10).contains("size=65536").contains("vs ADAPTIVE: 0.60 (goal <= 0.60x) met");
        assertThat(met.substring(met.indexOf("G2 "), met.indexOf("G3 "))).doesNotContain("size=65536");
        assertThat(met.substring(met.indexOf("G7 "), met.indexOf("G8 "))).doesNotContain("size=65536");
        String missed = print(parse(fixedLarge("MAGALLOC", 31.0), fixedLarge("ADAPTIVE", 50.0)));
        assertThat(missed.substring(missed.indexOf("G10 "))).contains("vs ADAPTIVE: 0.62 (goal <= 0.60x) NOT met");
    }

    /** A cross-thread row whose producer score has one fork per value (two iterations each at that value). */
    private static String crossThread(String allocator, String workers, double... forks) {
        StringBuilder raw = new StringBuilder();
        double sum = 0;
        for (double fork : forks) {
            raw.append(raw.length() == 0 ? "" : ", ").append("[ ").append(fork).append(", ").append(fork).append(" ]");
            sum += fork;
        }
        String produce = "\"produce\" : { \"score\" : " + sum / forks.length + ", \"scoreError\" : 1.0, "
                + "\"scoreUnit\" : \"ops/us\", \"rawData\" : [ " + raw + " ] }";
        return row("CrossThreadBenchmark.xthread", "thrpt", allocator, ", \"size\" : \"256\"", 2 * sum / forks.length,
                "ops/us", produce).replace("\"EVENT_LOOP\"", "\"" + workers + "\"");
    }

    @Test
    void crossThreadGoalsUseTheMedianForkAndTheWorstFork() {
        // Bimodal forks: the mean ratio (9 / 5 = 1.8) would miss 2x; the median fork (13 / 5) meets it, and the
        // slow forks (3 / 5) miss "no fork below adaptive's median".
        List<BenchResult> rows = parse(crossThread("MAGALLOC", "EVENT_LOOP", 3, 13, 13, 3, 13),
                crossThread("ADAPTIVE", "EVENT_LOOP", 5, 4, 6, 5, 5));
        assertThat(rows.get(0).forkScores()).containsExactly(3.0, 13.0, 13.0, 3.0, 13.0);
        assertThat(rows.get(0).score()).isEqualTo(9.0);
        String out = print(rows);
        assertThat(out).contains("median fork vs ADAPTIVE: 2.60 (goal >= 2.00x) met");
        assertThat(out).contains("worst fork vs ADAPTIVE median: 0.60 (goal >= 1.00x) NOT met");

        String plain = print(parse(crossThread("MAGALLOC", "PLAIN", 4, 4, 12), crossThread("ADAPTIVE", "PLAIN", 3, 9, 9)));
        assertThat(plain).contains("G4 Plain threads");
        assertThat(plain).contains("median fork vs ADAPTIVE: 0.44 (goal >= 1.00x) NOT met");
    }

    @Test
    void tableShowsRatioToAdaptive() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new JmhResultTable(parse(fixed("MAGALLOC", 10.0, 0.0), fixed("ADAPTIVE", 20.0, 0.0)))
                .print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String table = bytes.toString(StandardCharsets.UTF_8);
        assertThat(table).containsPattern("MAGALLOC +10\\.00 +- +ns/op +0\\.00 +0\\.50x +lower");
        assertThat(table).containsPattern("ADAPTIVE +20\\.00 +- +ns/op +0\\.00 +1\\.00x +lower");
    }
}
