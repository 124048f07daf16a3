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
 * Protocol 3a (the reuse pool's excess) in design.md: what the pool holds above its budget, up to its ceiling (a
 * large chunk's slab: up to the large ceiling), goes back to the system one delay after the pool went above; an offer
 * beyond its ceiling is refused at once; a purge that cannot be scheduled gives the excess back at once.
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

    private static final int SWING_MISSES = 2;

    private final ReusePool reuse = new ReusePool(2L * SLAB, 4L * SLAB, 6L * SLAB,
        new LargeSlabMisses(3_600_000_000_000L, SWING_MISSES), SLAB);
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
    void aLargeChunksSlabIsKeptOnlyWithinTheBudgetWhileLargeBuffersDoNotSwing() {
        assertThat(reuse.pollSlabAtLeast(SLAB)).as("one miss, below the swing").isNull();
        offer();
        assertThat(offerLarge()).as("a large chunk's slab within the budget").isTrue();
        assertThat(offerLarge()).as("a large chunk's slab, the pool at its budget").isFalse();
        assertThat(offer()).as("a size-class slab, into the excess").isTrue();
        assertThat(reuse.pooledBytes()).isEqualTo(3L * SLAB);
    }

    @Test
    void whileLargeBuffersSwingALargeChunksSlabGoesIntoTheExcessUpToTheLargeCeilingAndBackWithIt() {
        for (int i = 0; i < SWING_MISSES; i++) {
            assertThat(reuse.pollSlabAtLeast(SLAB)).as("a miss").isNull();
        }
        for (int i = 0; i < 4; i++) {
            offer();
        }
        assertThat(offer()).as("a size-class slab, the pool at its ceiling").isFalse();
        assertThat(offerLarge()).as("a large chunk's slab above the ceiling").isTrue();
        assertThat(offerLarge()).as("a large chunk's slab up to the large ceiling").isTrue();
        assertThat(offerLarge()).as("a large chunk's slab beyond the large ceiling").isFalse();
        assertThat(reuse.pooledBytes()).isEqualTo(reuse.largeCeiling());
        assertThat(scheduler.tasks).as("one purge for the whole excess").hasSize(1);

        scheduler.tasks.get(0).run();
        assertThat(freed).as("the size classes' and the large chunks' excess").hasSize(4);
        assertThat(reuse.pooledBytes()).isEqualTo(reuse.budget());
    }

    private boolean offerLarge() {
        boolean kept = reuse.offerLargeSlab(Slab.heap(SLAB));
        if (kept) {
            excess.afterOffer();
        }
        return kept;
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
        assertThat(TestAccess.pool(off, true).supply().reuse().largeCeiling()).isEqualTo(1L << 20);
        assertThat(TestAccess.pool(on, true).supply().reuse().ceiling()).isEqualTo(2L << 20);
        assertThat(TestAccess.pool(on, true).supply().reuse().largeCeiling()).isEqualTo(Long.MAX_VALUE);
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
            // Five non-current chunks empty out: the first stays for its class's next refill (protocol 3 (chunk
            // retirement): the kept chunk, which this plain thread's next tick would retire), four are retired.
            bufs.forEach(ByteBuf::release);
            // The purge frees down to the budget and only then clears its pending flag (DueTask.run): wait for both,
            // or the check below can read the flag while the purge is still finishing.
            ReuseExcess excess = TestAccess.pool(small, true).supply().reuseExcess();
            long deadline = System.nanoTime() + 60_000_000_000L; // only a bug reaches it
            while ((m.pooledFreeMemory(true) > budget || excess.isPurgePending()) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(m.pooledFreeMemory(true)).as("the pool 60 s after the release").isEqualTo(budget);
            assertThat(m.slabsFreed(true)).as("the slab beyond the ceiling, then the excess")
                .isEqualTo(4 - budget / chunkBytes);
            assertThat(excess.isPurgePending()).as("a purge pending 60 s after the release").isFalse();
        } finally {
            small.detachCurrentThread();
        }
    }

    /**
     * A queue of large buffers filling and draining, released by another thread, as a proxy does: the first swing
     * misses a slab for each of its 512 chunks, more than {@link ChunkSupply#SWING_MISSES}; the chunks the last swing
     * empties wait in the pool's excess, above a budget of 0, and the next swing takes every slab from there instead
     * of from the system. Two swings first, so that the chunks' size has settled (it follows the average request).
     * Heap memory, where large slabs go to the reuse pool on every JDK.
     */
    @Test
    void aSwingOfLargeBuffersTakesTheLastSwingsSlabsFromThePool() throws InterruptedException {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().reuseBudgetBytes(0)
            .decayMillis(3_600_000).build();
        MagazineByteBufAllocatorMetric m = alloc.metric();
        alloc.attachCurrentThread();
        try {
            swingReleasedElsewhere(alloc);
            swingReleasedElsewhere(alloc);
            long slabsAfterTwoSwings = m.slabsAllocated(false);
            assertThat(m.pooledFreeMemory(false)).as("bytes waiting in the excess after two swings")
                .isGreaterThanOrEqualTo(32L << 20);
            swingReleasedElsewhere(alloc);
            assertThat(m.slabsAllocated(false)).as("slabs taken from the system by the third swing")
                .isEqualTo(slabsAfterTwoSwings);
            assertThat(m.slabsFreed(false)).as("slabs freed, the excess's delay not over").isZero();
        } finally {
            alloc.detachCurrentThread();
        }
    }

    /**
     * 1,024 buffers of 64 KiB (64 MiB, two to a chunk), released by another thread; then one allocation, at which the
     * owner sees them empty.
     */
    private static void swingReleasedElsewhere(MagazineByteBufAllocator alloc) throws InterruptedException {
        List<ByteBuf> bufs = new ArrayList<>();
        for (int i = 0; i < 1024; i++) {
            bufs.add(alloc.heapBuffer(64 * 1024));
        }
        Thread releaser = new Thread(() -> bufs.forEach(ByteBuf::release));
        releaser.start();
        releaser.join();
        assertThat(bufs).allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
        alloc.heapBuffer(64 * 1024).release();
    }

    /**
     * The large chunks' excess goes back once the delay is over, with no call of {@code trim()}. A delay of 2 s, so
     * that the excess is still there when the swing is over.
     */
    @Test
    void anAllocatorsLargeExcessGoesBackAfterTheDelay() throws InterruptedException {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().reuseBudgetBytes(0).decayMillis(2_000)
            .build();
        MagazineByteBufAllocatorMetric m = alloc.metric();
        alloc.attachCurrentThread();
        try {
            swingReleasedElsewhere(alloc);
            assertThat(m.pooledFreeMemory(false)).as("the excess after the swing").isGreaterThanOrEqualTo(32L << 20);
            ReuseExcess excess = TestAccess.pool(alloc, false).supply().reuseExcess();
            long deadline = System.nanoTime() + 60_000_000_000L; // only a bug reaches it
            while ((m.pooledFreeMemory(false) > 0 || excess.isPurgePending()) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(m.pooledFreeMemory(false)).as("the pool 60 s after the release").isZero();
            assertThat(m.slabsFreed(false)).as("slabs freed by the purge").isPositive();
            assertThat(excess.isPurgePending()).as("a purge pending 60 s after the release").isFalse();
        } finally {
            alloc.detachCurrentThread();
        }
    }
}
