package io.github.magalloc.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Protocol 3a (the reuse pool's excess): large buffers swing while the current or the previous window has the swing's
 * misses, and stop once two windows pass with fewer. Time is given, not read.
 */
class LargeSlabMissesTest {
    private static final long WINDOW = 1_000;
    private static final long T0 = 5_000_000;

    @Test
    void swingsFromTheMissThatReachesTheCount() {
        LargeSlabMisses misses = new LargeSlabMisses(WINDOW, 3);
        assertThat(misses.swinging(T0)).isFalse();
        misses.count(T0);
        misses.count(T0 + 1);
        assertThat(misses.swinging(T0 + 2)).as("two misses of three").isFalse();
        misses.count(T0 + 3);
        assertThat(misses.swinging(T0 + 4)).isTrue();
    }

    @Test
    void aSwingLastsThroughTheNextWindowAndEndsAfterIt() {
        LargeSlabMisses misses = new LargeSlabMisses(WINDOW, 2);
        misses.count(T0);
        misses.count(T0);
        assertThat(misses.swinging(T0 + WINDOW + 10)).as("the window after the swing's").isTrue();
        assertThat(misses.swinging(T0 + 2 * WINDOW + 20)).as("two windows after, no miss since").isFalse();
    }

    @Test
    void aLongQuietForgetsTheLastWindow() {
        LargeSlabMisses misses = new LargeSlabMisses(WINDOW, 2);
        misses.count(T0);
        misses.count(T0);
        assertThat(misses.swinging(T0 + 5 * WINDOW)).as("several windows later").isFalse();
    }

    @Test
    void missesSpreadOverWindowsBelowTheCountNeverSwing() {
        LargeSlabMisses misses = new LargeSlabMisses(WINDOW, 3);
        for (long t = T0; t < T0 + 20 * WINDOW; t += WINDOW / 2 + 1) {
            misses.count(t);
            assertThat(misses.swinging(t)).as("at %d", t).isFalse();
        }
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new LargeSlabMisses(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LargeSlabMisses(WINDOW, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
