package io.github.magalloc.workload;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The two workloads, drawn with each kind of random source their users pass: SplittableRandom (benchmark tables),
 * a seeded java.util.Random (end-to-end load generator), ThreadLocalRandom (soak).
 */
class SizeDistributionTest {
    /** The benchmark tables' seed and length: the same sequence the benchmarks measure. */
    private static final long TABLE_SEED = 0x5EED_CAFEL;
    private static final int TABLE_SIZE = 65_521;

    private static int[] sample(SizeDistribution d, RandomGenerator random, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = d.next(random);
        }
        return out;
    }

    @Test
    void csvLoadsAllRowsWithTheirTotalFrequency() {
        SocketProxySizes table = SocketProxySizes.INSTANCE;
        assertThat(table.sizes).hasSize(375);
        assertThat(table.total()).isEqualTo(87_759); // the number of messages the histogram was taken from
        assertThat(table.sizes[0]).isEqualTo(9);
        assertThat(table.sizes[table.sizes.length - 1]).isEqualTo(18_432);
    }

    @Test
    void drawMapsEachCumulativeBoundaryToTheNextSize() {
        SocketProxySizes table = SocketProxySizes.INSTANCE;
        // 316 samples of 9 B come first: draws 0..315 give 9, draw 316 gives the next size (13).
        assertThat(table.sizeAt(0)).isEqualTo(9);
        assertThat(table.sizeAt(315)).isEqualTo(9);
        assertThat(table.sizeAt(316)).isEqualTo(13);
        assertThat(table.sizeAt(318)).isEqualTo(13); // 3 samples of 13 B
        assertThat(table.sizeAt(319)).isEqualTo(15);
        assertThat(table.sizeAt(table.total() - 1)).isEqualTo(18_432);
    }

    @Test
    void socketProxyDrawsOnlyCsvSizesWithTheCsvMean() {
        int[] sizes = sample(SizeDistribution.SOCKET_PROXY, new SplittableRandom(TABLE_SEED), TABLE_SIZE);
        Set<Integer> allowed = new HashSet<>();
        for (int s : SocketProxySizes.INSTANCE.sizes) {
            allowed.add(s);
        }
        assertThat(Arrays.stream(sizes).allMatch(allowed::contains)).isTrue();
        // The csv's weighted mean is 2,534 B; 65,521 draws land within a few percent of it.
        assertThat(Arrays.stream(sizes).average().orElseThrow()).isBetween(2_534 * 0.95, 2_534 * 1.05);
    }

    @Test
    void socketProxySizesComeWithTheirCsvFrequencies() {
        int[] s = sample(SizeDistribution.SOCKET_PROXY, new Random(2), 200_000);
        // In the csv, size 15 has 10,344 of 87,759 observations (11.8%).
        long fifteen = Arrays.stream(s).filter(x -> x == 15).count();
        assertThat(fifteen / 200_000.0).isBetween(0.113, 0.123);
        assertThat(Arrays.stream(s).max().getAsInt()).isLessThanOrEqualTo(18_432);
        assertThat(Arrays.stream(s).min().getAsInt()).isGreaterThanOrEqualTo(9);
    }

    @Test
    void socketProxyDrawsUseTheWholeRange() {
        SplittableRandom random = new SplittableRandom(1);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200_000; i++) {
            seen.add(SizeDistribution.SOCKET_PROXY.next(random));
        }
        assertThat(seen).contains(9, 15, 256, 18_432); // frequent and rare (6 of 87,759) sizes both appear
    }

    @Test
    void apiGatewayIsClampedLogNormalWithMedianAbout2KiB() {
        int[] sizes = sample(SizeDistribution.API_GATEWAY, new SplittableRandom(TABLE_SEED), TABLE_SIZE);
        Arrays.sort(sizes);
        assertThat(sizes[0]).isGreaterThanOrEqualTo(8);
        assertThat(sizes[sizes.length - 1]).isLessThanOrEqualTo(SizeDistribution.MAX_SIZE);
        // median of log-normal(7.6, 1.0) = e^7.6 = 1,998 B; p99 = e^(7.6 + 2.326) = 20.5 KiB
        assertThat(sizes[sizes.length / 2]).isBetween(1_900, 2_100);
        assertThat(sizes[(int) (sizes.length * 0.99)]).isBetween(18_000, 23_000);
    }

    @Test
    void apiGatewayHasSigmaOneWithASeededRandomToo() {
        int[] s = sample(SizeDistribution.API_GATEWAY, new Random(1), 100_000);
        Arrays.sort(s);
        assertThat(s[0]).isGreaterThanOrEqualTo(8);
        assertThat(s[s.length - 1]).isLessThanOrEqualTo(1 << 20);
        assertThat((double) s[s.length / 2]).isBetween(Math.exp(7.6) * 0.95, Math.exp(7.6) * 1.05);
        // sigma 1: the 84th percentile is e^(7.6 + 1)
        assertThat((double) s[(int) (s.length * 0.8413)]).isBetween(Math.exp(8.6) * 0.93, Math.exp(8.6) * 1.07);
    }

    @Test
    void sameSeedSameSizes() {
        for (SizeDistribution d : SizeDistribution.values()) {
            assertThat(sample(d, new Random(7), 100)).as(d.name()).isEqualTo(sample(d, new Random(7), 100));
            assertThat(sample(d, new SplittableRandom(7), 100)).as(d.name())
                    .isEqualTo(sample(d, new SplittableRandom(7), 100));
        }
    }

    @Test
    void parseIgnoresLetterCase() {
        assertThat(SizeDistribution.parse(" api_gateway")).isEqualTo(SizeDistribution.API_GATEWAY);
        assertThat(SizeDistribution.parse("SOCKET_PROXY")).isEqualTo(SizeDistribution.SOCKET_PROXY);
        assertThatThrownBy(() -> SizeDistribution.parse("NO_SUCH")).isInstanceOf(IllegalArgumentException.class);
    }
}
