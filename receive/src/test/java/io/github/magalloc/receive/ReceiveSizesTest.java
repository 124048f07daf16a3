package io.github.magalloc.receive;

import io.github.magalloc.MagazineByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The guesses: magalloc's size classes, then page runs at 1.5 and 2 times each power of two up to 1 GiB. */
class ReceiveSizesTest {
    @Test
    void theSizeClassesComeFirstThenPageRuns() {
        int[] classes = MagazineByteBufAllocator.sizeClasses();
        for (int i = 0; i < classes.length; i++) {
            assertThat(ReceiveSizes.sizeAt(i)).isEqualTo(classes[i]);
        }
        assertThat(ReceiveSizes.sizeAt(classes.length)).isEqualTo(48 * 1024);
        assertThat(ReceiveSizes.sizeAt(classes.length + 1)).isEqualTo(64 * 1024);
        assertThat(ReceiveSizes.sizeAt(classes.length + 2)).isEqualTo(96 * 1024);
        assertThat(ReceiveSizes.sizeAt(ReceiveSizes.indexAtLeast(Integer.MAX_VALUE))).isEqualTo(ReceiveSizes.MAX);
    }

    @Test
    void lookupsRoundUpAndDown() {
        assertThat(ReceiveSizes.sizeAt(ReceiveSizes.indexAtLeast(1460))).isEqualTo(1536);
        assertThat(ReceiveSizes.sizeAt(ReceiveSizes.indexAtLeast(1536))).isEqualTo(1536);
        assertThat(ReceiveSizes.sizeAt(ReceiveSizes.indexAtMost(1460))).isEqualTo(1280);
        assertThat(ReceiveSizes.sizeAt(ReceiveSizes.indexAtMost(512 * 1024))).isEqualTo(512 * 1024);
        assertThat(ReceiveSizes.sizeAt(ReceiveSizes.indexAtLeast(40 * 1024))).isEqualTo(48 * 1024);
        assertThat(ReceiveSizes.indexAtMost(1)).isZero();
    }
}
