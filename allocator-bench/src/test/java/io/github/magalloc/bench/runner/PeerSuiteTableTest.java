package io.github.magalloc.bench.runner;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PeerSuiteTableTest {
    /** One row of the peer's suite as JMH writes it. */
    private static BenchResult row(String allocatorType, double ns) {
        String json = "{ \"benchmark\" : \"io.github.neoionet.netty.microbenchmark."
            + "ByteBufAllocatorAllocPatternBenchmark.directAllocation\", \"mode\" : \"avgt\", \"threads\" : 1,"
            + " \"params\" : { \"sizePattern\" : \"SOCKET_PROXY\", \"allocatorType\" : \"" + allocatorType + "\","
            + " \"enableReadWrite\" : \"false\", \"MAX_LIVE_BUFFERS\" : \"1024\" },"
            + " \"primaryMetric\" : { \"score\" : " + ns + ", \"scoreError\" : \"NaN\", \"scoreUnit\" : \"ns/op\" },"
            + " \"secondaryMetrics\" : { } }";
        return BenchResult.of((Map<?, ?>) Json.parse(json));
    }

    private static List<BenchResult> run(double magalloc, double peer, double adaptive) {
        return List.of(row("MAGALLOC", magalloc), row("MIMALLOC", peer), row("ADAPTIVE", adaptive),
            row("POOLED", 200));
    }

    private static String print(List<List<BenchResult>> runs, int[] met) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        met[0] = PeerSuiteTable.print(runs, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aCellMeetsTheGoalOnlyWithinBothBounds() {
        int[] met = new int[1];
        assertThat(print(List.of(run(40, 50, 80)), met)).contains("0.80x", "0.50x", "met in 1 of 1 cells");
        assertThat(met[0]).isEqualTo(1);
        assertThat(print(List.of(run(41, 50, 80)), met)).contains("0.82x", "not met");
        assertThat(met[0]).isZero();
        assertThat(print(List.of(run(40, 100, 50)), met)).contains("0.80x", "not met"); // 0.80x adaptive
        assertThat(met[0]).isZero();
    }

    /** Three runs: the median run's ratio decides, not the best one. */
    @Test
    void severalRunsAreJudgedByTheMedianRatio() {
        int[] met = new int[1];
        String out = print(List.of(run(30, 50, 80), run(45, 50, 80), run(60, 50, 80)), met);
        assertThat(out).contains("0.90x", "the median of the runs' ratios", "met in 0 of 1 cells");
        assertThat(met[0]).isZero();
    }
}
