package io.github.magalloc.bench;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SizeDistributionTest {
    @Test
    void csvLoadsAllRowsWithTheirTotalFrequency() {
        SizeDistribution.SocketProxyTable table = SizeDistribution.SocketProxyTable.INSTANCE;
        assertThat(table.sizes).hasSize(375);
        assertThat(table.total()).isEqualTo(87_759); // the sample count the mission states
        assertThat(table.sizes[0]).isEqualTo(9);
        assertThat(table.sizes[table.sizes.length - 1]).isEqualTo(18_432);
    }

    @Test
    void socketProxyDrawsOnlyCsvSizesWithTheCsvMean() {
        int[] sizes = SizeDistribution.table("SOCKET_PROXY");
        Set<Integer> allowed = new HashSet<>();
        for (int s : SizeDistribution.SocketProxyTable.INSTANCE.sizes) {
            allowed.add(s);
        }
        assertThat(sizes).hasSize(SizeDistribution.TABLE_SIZE);
        assertThat(Arrays.stream(sizes).allMatch(allowed::contains)).isTrue();
        // The csv's weighted mean is 2,534 B; 65,521 draws land within a few percent of it.
        assertThat(Arrays.stream(sizes).average().orElseThrow()).isBetween(2_534 * 0.95, 2_534 * 1.05);
    }

    @Test
    void drawMapsEachCumulativeBoundaryToTheNextSize() {
        SizeDistribution.SocketProxyTable table = SizeDistribution.SocketProxyTable.INSTANCE;
        // 316 samples of 9 B come first: draws 0..315 give 9, draw 316 gives the next size (13).
        assertThat(table.sizeAt(0)).isEqualTo(9);
        assertThat(table.sizeAt(315)).isEqualTo(9);
        assertThat(table.sizeAt(316)).isEqualTo(13);
        assertThat(table.sizeAt(318)).isEqualTo(13); // 3 samples of 13 B
        assertThat(table.sizeAt(319)).isEqualTo(15);
        assertThat(table.sizeAt(table.total() - 1)).isEqualTo(18_432);
    }

    @Test
    void apiGatewayIsClampedLogNormalWithMedianAbout2KiB() {
        int[] sizes = SizeDistribution.table("API_GATEWAY").clone();
        Arrays.sort(sizes);
        assertThat(sizes[0]).isGreaterThanOrEqualTo(8);
        assertThat(sizes[sizes.length - 1]).isLessThanOrEqualTo(1 << 20);
        // median of log-normal(7.6, 1.0) = e^7.6 = 1,998 B; p99 = e^(7.6 + 2.326) = 20.5 KiB
        assertThat(sizes[sizes.length / 2]).isBetween(1_900, 2_100);
        assertThat(sizes[(int) (sizes.length * 0.99)]).isBetween(18_000, 23_000);
    }

    @Test
    void tablesAreReproducibleAndNumbersMeanFixedSizes() {
        assertThat(SizeDistribution.table("API_GATEWAY")).isEqualTo(SizeDistribution.table("API_GATEWAY"));
        assertThat(SizeDistribution.table("256")).containsOnly(256);
        assertThatThrownBy(() -> SizeDistribution.table("NO_SUCH")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void drawUsesTheWholeRange() {
        SplittableRandom random = new SplittableRandom(1);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200_000; i++) {
            seen.add(SizeDistribution.SOCKET_PROXY.draw(random));
        }
        assertThat(seen).contains(9, 15, 256, 18_432); // frequent and rare (6 of 87,759) sizes both appear
    }
}
