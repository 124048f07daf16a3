package io.github.magalloc.bench;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class AllocPatternBenchmarkTest {
    @Test
    void everyRoundReplacesEverySlotOnce() {
        int slots = 1024;
        int[] order = AllocPatternBenchmark.shuffledRounds(slots, 4);
        assertThat(order).hasSize(4 * slots);
        for (int r = 0; r < 4; r++) {
            int[] round = Arrays.copyOfRange(order, r * slots, (r + 1) * slots);
            assertThat(round).as("round %d shuffled", r).isNotEqualTo(IntStream.range(0, slots).toArray());
            Arrays.sort(round);
            assertThat(round).isEqualTo(IntStream.range(0, slots).toArray());
        }
    }

    @Test
    void slotOrderLengthNeverSharesAPeriodWithTheSizeTable() {
        // Otherwise a slot would get the same size back every round (a trivially reusable free slot).
        for (int maxLive : new int[] {128, 1024, 8192, 65536}) {
            int length = maxLive * Math.max(1, SizeTable.LENGTH / maxLive);
            assertThat(gcd(length, SizeTable.LENGTH)).as("maxLive %d", maxLive).isEqualTo(1);
        }
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
