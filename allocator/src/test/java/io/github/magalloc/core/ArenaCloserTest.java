package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ArenaCloser}'s bookkeeping, with a scheduler this test runs by hand: slabs wait for one scheduled close,
 * which frees them all and asks for one trim of their bytes; beyond the pending bound the freeing thread frees its
 * own; with no thread to schedule, the freeing thread frees at once. The slabs are real direct slabs (freed at once
 * on JDK 17, by closing their arena on JDK 25), so a slab freed twice fails in Netty.
 */
class ArenaCloserTest {
    private static final int MIB = 1 << 20;

    private final AtomicLong trimmedBytes = new AtomicLong();
    private final List<Runnable> scheduled = new ArrayList<>();

    @Test
    void slabsWaitForOneCloseThatFreesThemAllAndAsksForOneTrim() {
        ArenaCloser closer = new ArenaCloser(trimmedBytes::addAndGet, (task, delay) -> scheduled.add(task), 8 * MIB);
        for (int i = 0; i < 3; i++) {
            closer.close(Slab.direct(MIB));
        }
        assertThat(closer.pendingBytes()).isEqualTo(3 * MIB);
        assertThat(trimmedBytes).hasValue(0);
        assertThat(scheduled).as("one close for all three").hasSize(1);

        scheduled.remove(0).run();

        assertThat(closer.pendingBytes()).isZero();
        assertThat(trimmedBytes).hasValue(3 * MIB);
        assertThat(scheduled).as("nothing left to close").isEmpty();
    }

    @Test
    void beyondTheBoundTheFreeingThreadFreesItsOwnSlab() {
        ArenaCloser closer = new ArenaCloser(trimmedBytes::addAndGet, (task, delay) -> scheduled.add(task), 2 * MIB);
        closer.close(Slab.direct(MIB));
        closer.close(Slab.direct(MIB));
        closer.close(Slab.direct(MIB));
        assertThat(closer.pendingBytes()).as("the bound").isEqualTo(2 * MIB);
        assertThat(trimmedBytes).as("the third, freed by its freeing thread").hasValue(MIB);

        scheduled.remove(0).run();

        assertThat(closer.pendingBytes()).isZero();
        assertThat(trimmedBytes).hasValue(3 * MIB);
    }

    @Test
    void withNoThreadToScheduleTheFreeingThreadFreesAtOnce() {
        ArenaCloser closer = new ArenaCloser(trimmedBytes::addAndGet, (task, delay) -> {
            throw new IllegalStateException("no thread");
        }, 8 * MIB);
        closer.close(Slab.direct(MIB));
        assertThat(closer.pendingBytes()).isZero();
        assertThat(trimmedBytes).hasValue(MIB);
    }
}
