package io.github.magalloc.bench;

import io.github.magalloc.workload.SizeDistribution;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The distributions themselves are tested in the workload module (SizeDistributionTest). */
class SizeTableTest {
    @Test
    void aTableIsTheDistributionDrawnWithTheFixedSeed() {
        for (SizeDistribution d : SizeDistribution.values()) {
            int[] table = SizeTable.of(d.name());
            assertThat(table).hasSize(SizeTable.LENGTH);
            SplittableRandom random = new SplittableRandom(SizeTable.SEED);
            for (int i = 0; i < table.length; i++) {
                assertThat(table[i]).as("%s entry %d", d, i).isEqualTo(d.next(random));
            }
        }
    }

    @Test
    void tablesAreReproducibleAndNumbersMeanFixedSizes() {
        assertThat(SizeTable.of("API_GATEWAY")).isEqualTo(SizeTable.of("API_GATEWAY"));
        assertThat(SizeTable.of("SOCKET_PROXY")).isEqualTo(SizeTable.of("SOCKET_PROXY"));
        assertThat(SizeTable.of("256")).hasSize(SizeTable.LENGTH).containsOnly(256);
        assertThatThrownBy(() -> SizeTable.of("NO_SUCH")).isInstanceOf(IllegalArgumentException.class);
    }
}
