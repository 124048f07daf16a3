package io.github.magalloc.bench;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.bench.FootprintBreakdown.Sample;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FootprintBreakdownTest {
    @Test
    void allocPatternFactorsAreInRangeAndNothingIsHeldAfterTheEventLoopEnds() throws InterruptedException {
        assertFactorsInRangeAndAllBack("API_GATEWAY", 40_000);
    }

    @Test
    void pinningFactorsAreInRangeAndNothingIsHeldAfterTheEventLoopEnds() throws InterruptedException {
        assertFactorsInRangeAndAllBack(FootprintBreakdown.PINNING, 4_000);
    }

    private static void assertFactorsInRangeAndAllBack(String workload, long ops) throws InterruptedException {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        List<Sample> samples = FootprintBreakdown.onEventLoop(alloc, workload, 512, ops, 4);

        assertThat(samples).hasSize(4);
        for (Sample s : samples) {
            // Size classes are at most 25% apart and pages are 8 KiB above 32 KiB: rounding stays under 1.25.
            assertThat(s.rounding()).isBetween(1.0, 1.25);
            // Every live segment and page lies in a chunk the magazine holds.
            assertThat(s.occupancy()).isGreaterThanOrEqualTo(1.0);
            assertThat(s.reusePool()).isGreaterThanOrEqualTo(1.0);
        }
        // The workload released every buffer and its event loop has ended: its chunks are all back, none is held.
        assertThat(alloc.metric().usedDirectMemory()).isEqualTo(alloc.metric().pooledFreeMemory(true));
        assertThat(alloc.metric().endedThreadsMemory(true)).isZero();
    }
}
