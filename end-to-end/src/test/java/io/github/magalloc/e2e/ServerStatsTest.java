package io.github.magalloc.e2e;

import io.github.magalloc.workload.AllocatorKind;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ServerStatsTest {
    @Test
    void textRoundTrips() {
        ServerStats s = new ServerStats(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        assertThat(ServerStats.parse(s.toText())).isEqualTo(s);
    }

    @Test
    void rowTakesDifferencesPerServedRequestAndTableShowsRatios() {
        Histogram h = LoadGenerator.newHistogram();
        h.recordValue(1_000_000);
        LoadResult load = new LoadResult(1000, 0, List.of(), h, 1_000_000_000L);
        ServerStats before = new ServerStats(100, 10_000, 1, 5, 0, 0, 1, 0, 0, 0, 0);
        ServerStats after = new ServerStats(1100, 2_010_000, 3, 25, 100 << 20, 4 << 20, 1, 0, 0, 0, 0);
        RunRow adaptive = RunRow.of(AllocatorKind.ADAPTIVE, load, before, after);
        assertThat(adaptive.allocatedBytesPerRequest()).isEqualTo(2000.0);
        assertThat(adaptive.gcCount()).isEqualTo(2);
        assertThat(adaptive.gcMillis()).isEqualTo(20);

        LoadResult half = new LoadResult(500, 0, List.of(), h, 1_000_000_000L);
        RunRow other = RunRow.of(AllocatorKind.MAGALLOC, half, before, after);
        String table = EndToEndResultTable.render(List.of(other, adaptive));
        assertThat(table).contains("Ratio to adaptive").contains("| magalloc | 0.50x |").doesNotContain("Ratio to pooled");
    }

    @Test
    void medianOfRoundsIsPerColumnAndSumsCounts() {
        Histogram h = LoadGenerator.newHistogram();
        h.recordValue(1000);
        ServerStats zero = new ServerStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        List<RunRow> rounds = List.of(
                RunRow.of(AllocatorKind.POOLED, new LoadResult(100, 0, List.of(), h, 1_000_000_000L), zero, zero),
                RunRow.of(AllocatorKind.POOLED, new LoadResult(300, 1, List.of(), h, 1_000_000_000L), zero, zero),
                RunRow.of(AllocatorKind.POOLED, new LoadResult(200, 0, List.of(), h, 1_000_000_000L), zero, zero));
        RunRow m = RunRow.median(rounds);
        assertThat(m.requestsPerSecond()).isEqualTo(200.0);
        assertThat(m.verified()).isEqualTo(600);
        assertThat(m.failures()).isEqualTo(1);
    }
}
