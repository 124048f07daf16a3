package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.Slab;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Protocol 3a (the reuse pool's excess) in design.md: what the pool holds above its budget, up to its ceiling, goes
 * back to the system one delay after the pool went above; an offer beyond the ceiling is refused at once; a purge
 * that cannot be scheduled gives the excess back at once.
 */
class ReuseExcessTest {
    private static final int SLAB = SizeClasses.MIN_CHUNK_SIZE;
    private static final long DELAY_MILLIS = 1_000;

    /** Keeps the scheduled tasks instead of running them: the test runs them. */
    private static final class ManualScheduler implements BackgroundThread.Scheduler {
        final List<Runnable> tasks = new ArrayList<>();
        final List<Long> delays = new ArrayList<>();

        @Override
        public void schedule(Runnable task, long delayMillis) {
            tasks.add(task);
            delays.add(delayMillis);
        }
    }

    private final ReusePool reuse = new ReusePool(2L * SLAB, 4L * SLAB, SLAB);
    private final List<Slab> freed = new ArrayList<>();
    private final ManualScheduler scheduler = new ManualScheduler();
    private final ReuseExcess excess = new ReuseExcess(reuse, freed::add, scheduler, DELAY_MILLIS);

    private boolean offer() {
        boolean kept = reuse.offerSlab(Slab.heap(SLAB));
        if (kept) {
            excess.afterOffer();
        }
        return kept;
    }

    @Test
    void withinTheBudgetNothingIsScheduled() {
        assertThat(offer()).isTrue();
        assertThat(offer()).isTrue();
        assertThat(reuse.pooledBytes()).isEqualTo(2L * SLAB);
        assertThat(scheduler.tasks).isEmpty();
        assertThat(excess.isPurgePending()).isFalse();
    }

    @Test
    void theFirstOfferAboveTheBudgetSchedulesOnePurgeAfterTheDelay() {
        offer();
        offer();
        assertThat(offer()).isTrue();
        assertThat(offer()).isTrue();
        assertThat(reuse.pooledBytes()).isEqualTo(4L * SLAB);
        assertThat(scheduler.tasks).hasSize(1);
        assertThat(scheduler.delays).containsExactly(DELAY_MILLIS);
        assertThat(excess.isPurgePending()).isTrue();
        assertThat(freed).isEmpty();
    }

    @Test
    void anOfferBeyondTheCeilingIsRefused() {
        for (int i = 0; i < 4; i++) {
            assertThat(offer()).isTrue();
        }
        assertThat(offer()).as("a fifth slab, beyond the ceiling of four").isFalse();
        assertThat(reuse.pooledBytes()).isEqualTo(reuse.ceiling());
    }

    @Test
    void aLargeChunksSlabIsKeptOnlyWithinTheBudget() {
        offer();
        offer();
        assertThat(reuse.offerLargeSlab(Slab.heap(SLAB))).as("a large chunk's slab, the pool at its budget").isFalse();
        assertThat(offer()).as("a size-class slab, into the excess").isTrue();
        assertThat(reuse.pooledBytes()).isEqualTo(3L * SLAB);
    }

    @Test
    void thePurgeGivesBackDownToTheBudgetAndClearsItsFlag() {
        for (int i = 0; i < 4; i++) {
            offer();
        }
        scheduler.tasks.get(0).run();
        assertThat(freed).hasSize(2);
        assertThat(reuse.pooledBytes()).isEqualTo(reuse.budget());
        assertThat(excess.isPurgePending()).isFalse();
        assertThat(scheduler.tasks).as("nothing left above the budget, no new purge").hasSize(1);

        offer();
        assertThat(scheduler.tasks).as("the next excess schedules a purge of its own").hasSize(2);
    }

    @Test
    void offersWhileAPurgeIsPendingScheduleNoMoreAndThePurgeTakesTheirExcessToo() {
        offer();
        offer();
        offer();
        assertThat(scheduler.tasks).hasSize(1);
        offer();
        assertThat(scheduler.tasks).hasSize(1);
        scheduler.tasks.get(0).run();
        assertThat(freed).hasSize(2);
        assertThat(reuse.pooledBytes()).isEqualTo(reuse.budget());
    }

    @Test
    void aSchedulerThatFailsLeavesThePoolAtItsBudget() {
        ReuseExcess failing = new ReuseExcess(reuse, freed::add, (task, delay) -> {
            throw new IllegalStateException("no thread");
        }, DELAY_MILLIS);
        for (int i = 0; i < 4; i++) {
            assertThat(reuse.offerSlab(Slab.heap(SLAB))).isTrue();
            failing.afterOffer();
        }
        assertThat(reuse.pooledBytes()).isEqualTo(reuse.budget());
        assertThat(freed).hasSize(2);
        assertThat(failing.isPurgePending()).isFalse();
    }

    @Test
    void withDecayOffTheCeilingIsTheBudget() {
        MagazineByteBufAllocator off = MagazineByteBufAllocator.builder().reuseBudgetBytes(1L << 20).decayMillis(0)
            .build();
        MagazineByteBufAllocator on = MagazineByteBufAllocator.builder().reuseBudgetBytes(1L << 20).build();
        assertThat(TestAccess.pool(off, true).supply().reuse().ceiling()).isEqualTo(1L << 20);
        assertThat(TestAccess.pool(on, true).supply().reuse().ceiling()).isEqualTo(2L << 20);
    }

    /**
     * Through the allocator, with its own daemon thread: a thread magazine's retired chunks fill the pool to its
     * ceiling, and the excess goes back once the delay is over, with no call of {@code trim()}.
     */
    @Test
    void anAllocatorsExcessGoesBackAfterTheDelay() throws InterruptedException {
        long budget = 128 * 1024;
        MagazineByteBufAllocator small = MagazineByteBufAllocator.builder().reuseBudgetBytes(budget).decayMillis(50)
            .build();
        MagazineByteBufAllocatorMetric m = small.metric();
        int chunkBytes = SizeClasses.chunkSizeOf(SizeClasses.indexOf(1024));
        small.attachCurrentThread();
        try {
            List<ByteBuf> bufs = new ArrayList<>();
            for (int i = 0; i < chunkBytes / 1024 * 6; i++) {
                bufs.add(small.directBuffer(1024));
            }
            bufs.forEach(ByteBuf::release); // five non-current chunks empty out and are retired
            // The purge frees down to the budget and only then clears its pending flag (DueTask.run): wait for both,
            // or the check below can read the flag while the purge is still finishing.
            ReuseExcess excess = TestAccess.pool(small, true).supply().reuseExcess();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ((m.pooledFreeMemory(true) > budget || excess.isPurgePending()) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(m.pooledFreeMemory(true)).as("the pool 10 s after the release").isEqualTo(budget);
            assertThat(m.slabsFreed(true)).as("the slab beyond the ceiling, then the excess")
                .isEqualTo(5 - budget / chunkBytes);
            assertThat(excess.isPurgePending()).as("a purge pending 10 s after the release").isFalse();
        } finally {
            small.detachCurrentThread();
        }
    }
}
