package io.github.magalloc.e2e;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class SizeDistributionTest {
    private static int[] sample(SizeDistribution d, long seed, int n) {
        Random r = new Random(seed);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = d.next(r);
        }
        return out;
    }

    @Test
    void apiGatewayIsLogNormalAroundE76AndClamped() {
        int[] s = sample(SizeDistribution.apiGateway(), 1, 100_000);
        Arrays.sort(s);
        assertThat(s[0]).isGreaterThanOrEqualTo(8);
        assertThat(s[s.length - 1]).isLessThanOrEqualTo(1 << 20);
        double median = s[s.length / 2];
        assertThat(median).isBetween(Math.exp(7.6) * 0.95, Math.exp(7.6) * 1.05);
        // sigma 1: the 84th percentile is e^(7.6 + 1)
        assertThat((double) s[(int) (s.length * 0.8413)]).isBetween(Math.exp(8.6) * 0.93, Math.exp(8.6) * 1.07);
    }

    @Test
    void socketProxySizesComeFromTheCsvWithItsFrequencies() {
        int[] s = sample(SizeDistribution.socketProxy(), 2, 200_000);
        // In the bundled CSV, size 15 has 10344 of 87759 observations (11.8%).
        long fifteen = Arrays.stream(s).filter(x -> x == 15).count();
        assertThat(fifteen / 200_000.0).isBetween(0.113, 0.123);
        assertThat(Arrays.stream(s).max().getAsInt()).isLessThanOrEqualTo(18432);
        assertThat(Arrays.stream(s).min().getAsInt()).isGreaterThanOrEqualTo(9);
    }

    @Test
    void sameSeedSameSizes() {
        assertThat(sample(SizeDistribution.apiGateway(), 7, 100)).isEqualTo(sample(SizeDistribution.apiGateway(), 7, 100));
        assertThat(sample(SizeDistribution.socketProxy(), 7, 100))
                .isEqualTo(sample(SizeDistribution.socketProxy(), 7, 100));
    }

    @Test
    void uniformCoversItsBounds() {
        int[] s = sample(SizeDistribution.uniform(0, 3), 3, 1000);
        assertThat(s).contains(0, 1, 2, 3);
        assertThat(Arrays.stream(s).allMatch(x -> x >= 0 && x <= 3)).isTrue();
    }
}
