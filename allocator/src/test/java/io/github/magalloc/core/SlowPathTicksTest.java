package io.github.magalloc.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Protocol 7 (decay) on the owner's slow paths ({@link MagazineDecay.OnSlowPaths}): the clock is not read on every slow
 * path, yet a tick that is due runs within {@value MagazineDecay.OnSlowPaths#MAX_CLOCK_SKIP} + 1 slow paths however
 * many slow paths came before it. The sleep only makes a tick due (a lower bound on time): the test passes on a busy
 * machine. Planted (the skip left to double without a bound): fails.
 */
class SlowPathTicksTest {
    private static final long PERIOD_MILLIS = 20;

    @Test
    void aTickDueRunsWithinTheBoundedSkipAfterManySlowPaths() throws Exception {
        TickCountingTarget magazine = new TickCountingTarget(Thread.currentThread());
        MagazineDecay decay = new MagazineDecay.OnSlowPaths(magazine, PERIOD_MILLIS);
        decay.onChunkTaken();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 100_000; i++) { // a busy thread's refills: the skip grows to its bound
                decay.onSlowPath();
            }
            Thread.sleep(PERIOD_MILLIS + 1); // a tick is due now, whatever ran before
            int ticksBefore = magazine.ticks.get();
            for (int i = 0; i <= MagazineDecay.OnSlowPaths.MAX_CLOCK_SKIP; i++) {
                decay.onSlowPath();
            }
            assertThat(magazine.ticks.get()).as("ticks in the %d slow paths after one was due (round %d)",
                MagazineDecay.OnSlowPaths.MAX_CLOCK_SKIP + 1, round).isGreaterThan(ticksBefore);
        }
    }

    @Test
    void noTickRunsOnceTheMagazineHoldsNothingUntilItTakesAChunk() throws Exception {
        TickCountingTarget magazine = new TickCountingTarget(Thread.currentThread());
        MagazineDecay decay = new MagazineDecay.OnSlowPaths(magazine, PERIOD_MILLIS);
        decay.onChunkTaken();
        magazine.holdsChunks = false;
        Thread.sleep(PERIOD_MILLIS + 1);
        for (int i = 0; i <= MagazineDecay.OnSlowPaths.MAX_CLOCK_SKIP; i++) {
            decay.onSlowPath();
        }
        assertThat(magazine.ticks.get()).as("the tick that found nothing held").isEqualTo(1);
        Thread.sleep(PERIOD_MILLIS + 1);
        for (int i = 0; i <= MagazineDecay.OnSlowPaths.MAX_CLOCK_SKIP; i++) {
            decay.onSlowPath();
        }
        assertThat(magazine.ticks.get()).as("no tick while nothing is held").isEqualTo(1);
        magazine.holdsChunks = true;
        decay.onChunkTaken();
        Thread.sleep(PERIOD_MILLIS + 1);
        decay.onSlowPath(); // a chunk taken starts the ticks again, reading the clock at the first slow path
        assertThat(magazine.ticks.get()).as("ticks after a chunk was taken").isEqualTo(2);
    }
}
