package io.github.magalloc.e2e;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The workload distributions themselves are tested in the workload module (SizeDistributionTest). */
class BodySizesTest {
    private static int[] sample(BodySizes d, long seed, int n) {
        Random r = new Random(seed);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = d.next(r);
        }
        return out;
    }

    @Test
    void uniformCoversItsBounds() {
        int[] s = sample(BodySizes.uniform(0, 3), 3, 1000);
        assertThat(s).contains(0, 1, 2, 3);
        assertThat(Arrays.stream(s).allMatch(x -> x >= 0 && x <= 3)).isTrue();
    }

    @Test
    void uniformSameSeedSameSizes() {
        BodySizes sizes = BodySizes.uniform(0, 65_536);
        assertThat(sample(sizes, 7, 100)).isEqualTo(sample(sizes, 7, 100));
    }

    @Test
    void uniformRejectsRangesOutsideTheWorkloads() {
        assertThatThrownBy(() -> BodySizes.uniform(-1, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BodySizes.uniform(0, (1 << 20) + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BodySizes.uniform(4, 3)).isInstanceOf(IllegalArgumentException.class);
    }
}
