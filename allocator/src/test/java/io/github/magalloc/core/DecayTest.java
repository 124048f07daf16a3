package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Protocol 7 (decay): each rule of the tick, driven tick by tick on the test thread (the magazine's owner), and the
 * ticks and collects that an event loop runs on its own.
 */
class DecayTest extends OneMagazineTest {
    DecayTest() {
        super(MagazineByteBufAllocator.builder().reuseBudgetBytes(0).build());
    }

    private List<MagByteBuf> fillChunks(int chunks) {
        List<MagByteBuf> buffers = new ArrayList<>();
        for (int i = 0; i < chunks * segments; i++) {
            buffers.add(allocate());
        }
        return buffers;
    }

    /** Releases on a thread that does not own the magazine: the segments go to the chunks' remote queues. */
    private static void releaseOnAnotherThread(List<? extends ByteBuf> buffers) throws Exception {
        FutureTask<Void> release = new FutureTask<>(() -> {
            buffers.forEach(ByteBuf::release);
            return null;
        });
        Thread thread = new Thread(release, "decay-test-releaser");
        thread.start();
        release.get(30, TimeUnit.SECONDS);
    }

    private long heldBytes() {
        return pool.metrics().reservedBytes();
    }

    @Test
    void aParkedChunkWhoseSegmentsCameBackRemotelyIsRetiredAtTheSecondTick() throws Exception {
        List<MagByteBuf> parked = fillChunks(2).subList(0, segments); // the first chunk, parked full
        releaseOnAnotherThread(parked);
        assertThat(magazine.chunkCount(sizeClass)).isEqualTo(2);

        // It was made current before this first tick, so the tick only marks it.
        assertThat(magazine.decayTick()).isTrue();
        assertThat(magazine.chunkCount(sizeClass)).isEqualTo(2);
        assertThat(magazine.decayTick()).isTrue();
        assertThat(magazine.chunkCount(sizeClass)).isEqualTo(1);
        assertThat(pool.metrics().activeChunks(sizeClass)).isEqualTo(1);
    }

    @Test
    void anUnusedCurrentChunkIsParkedAtOneTickAndRetiredAtTheNextAndTheTicksThenStop() {
        allocate().release();
        assertThat(magazine.chunkCount(sizeClass)).isEqualTo(1);
        long slabBytes = heldBytes();
        assertThat(slabBytes).isPositive();

        assertThat(magazine.decayTick()).isTrue();
        assertThat(magazine.current(sizeClass)).isNull();
        assertThat(magazine.chunkCount(sizeClass)).isEqualTo(1);
        assertThat(magazine.decayTick()).as("nothing left: the ticks stop").isFalse();
        assertThat(magazine.chunkCount(sizeClass)).isZero();
        assertThat(heldBytes()).isZero();
    }

    @Test
    void aClassStillInUseKeepsItsChunkAcrossTicks() {
        MagByteBuf first = allocate();
        first.release();
        SizeClassChunk chunk = magazine.current(sizeClass);
        for (int tick = 0; tick < 5; tick++) {
            assertThat(magazine.decayTick()).isTrue();
            // Light traffic between ticks: the refill takes the parked chunk back, no slab, no pool.
            allocate().release();
            assertThat(magazine.current(sizeClass)).isSameAs(chunk);
        }
        assertThat(pool.metrics().slabsAllocated()).isEqualTo(1);
        assertThat(pool.metrics().slabsFreed()).isZero();
    }

    @Test
    void aChunkWithALiveBufferIsKept() {
        MagByteBuf held = allocate();
        for (int tick = 0; tick < 4; tick++) {
            assertThat(magazine.decayTick()).isTrue();
        }
        assertThat(magazine.current(sizeClass)).isSameAs(held.memory());
        held.release();
        magazine.decayTick();
        magazine.decayTick();
        assertThat(magazine.chunkCount(sizeClass)).isZero();
    }

    @Test
    void anUnusedLargeChunkIsDetachedWhenItServedNothingForAPeriod() {
        MagByteBuf large = keep(magazine.allocateLarge(100_000, Integer.MAX_VALUE));
        assertThat(pool.metrics().largeChunks()).isEqualTo(1);
        large.release();
        // The release set the emptied flag; the tick releases spares beyond the allowance (one spare stays).
        assertThat(magazine.decayTick()).isTrue();
        assertThat(pool.metrics().largeChunks()).isEqualTo(1);
        assertThat(magazine.decayTick()).isFalse();
        assertThat(pool.metrics().largeChunks()).isZero();
        assertThat(heldBytes()).isZero();
    }

    /** A magazine of {@code memory} owned by the test thread, with ticks that only the test runs (decayTick). */
    private static ThreadMagazine tickedByTheTest(MemoryPool memory) {
        return new ThreadMagazine(memory.supply(), Thread.currentThread(),
            m -> new MagazineDecay.OnSlowPaths(m, TimeUnit.HOURS.toMillis(1)));
    }

    /**
     * Protocol 3 (chunk retirement) where ticks mark the chunks: the release that empties a parked chunk that served
     * in this period keeps it for its class's next refill (one per class), and a tick retires it once it stays unused
     * for a whole period. So a class whose level swings by a chunk does not retire a chunk and take one from the pool
     * at every swing.
     */
    @Test
    void aParkedChunkEmptiedInThePeriodItServedIsKeptUntilTheSecondTickOnePerClass() {
        ThreadMagazine ticking = tickedByTheTest(pool);
        try {
            List<MagByteBuf> buffers = new ArrayList<>();
            for (int i = 0; i < 3 * segments; i++) {
                buffers.add(keep(ticking.allocate(sizeClass, SIZE, Integer.MAX_VALUE)));
            }
            assertThat(ticking.chunkCount(sizeClass)).as("two parked full, one current").isEqualTo(3);
            buffers.subList(0, segments).forEach(MagByteBuf::release);
            assertThat(ticking.chunkCount(sizeClass)).as("the first, emptied, kept").isEqualTo(3);
            buffers.subList(segments, 2 * segments).forEach(MagByteBuf::release);
            assertThat(ticking.chunkCount(sizeClass)).as("the second retired: one kept per class").isEqualTo(2);
            assertThat(pool.metrics().activeChunks(sizeClass)).isEqualTo(2);
            assertThat(ticking.decayTick()).isTrue();
            assertThat(ticking.chunkCount(sizeClass)).as("the first tick marks the kept chunk").isEqualTo(2);
            assertThat(ticking.decayTick()).isTrue();
            assertThat(ticking.chunkCount(sizeClass)).as("unused for a whole period: retired").isEqualTo(1);
            buffers.subList(2 * segments, 3 * segments).forEach(MagByteBuf::release);
        } finally {
            ticking.releaseThreadResources();
        }
    }

    /**
     * Protocol 6 (large chunks) where large slabs go to the system and ticks mark the chunks: the release that empties
     * large chunks beyond the spare allowance gives back only those that served no allocation since the last tick;
     * those that served in this period stay as spares until a tick finds them unused for a whole period. So a level
     * of large buffers that swings within a period takes no new slab at each swing, and a burst's chunks still go back
     * within two periods. Where slabs go to the reuse pool, the chunks beyond the allowance go as they empty. Direct
     * memory, which goes to the system where Netty frees it at once (checked by DirectMemoryReleaseTest). The releases
     * run on another thread, so that none is kept as the owner's released run.
     */
    @Test
    void emptiedLargeChunksThatServedInThePeriodWaitForATickWhereSlabsGoToTheSystem() throws Exception {
        MemoryPool direct = TestAccess.pool(MagazineByteBufAllocator.builder().reuseBudgetBytes(0).build(), true);
        ThreadMagazine ticking = tickedByTheTest(direct);
        boolean keeps = direct.supply().largeSlabReturn() == LargeSlabReturn.TO_SYSTEM;
        assertThat(keeps).isEqualTo(DirectMemoryRelease.HERE == DirectMemoryRelease.AT_ONCE);
        try {
            List<MagByteBuf> burst = largeBurst(ticking);
            long chunks = direct.metrics().largeChunks();
            assertThat(chunks).as("the burst's chunks").isGreaterThan(2);
            releaseOnAnotherThread(burst);
            ticking.releaseLargeSparesIfEmptied();
            if (keeps) {
                assertThat(direct.metrics().largeChunks()).as("they served in this period: all kept")
                    .isEqualTo(chunks);
                assertThat(ticking.decayTick()).as("the first tick only marks them").isTrue();
                assertThat(direct.metrics().largeChunks()).isEqualTo(chunks);
                assertThat(ticking.decayTick()).as("unused for a whole period: all go back").isFalse();
                assertThat(direct.metrics().largeChunks()).isZero();

                burst = largeBurst(ticking);
                ticking.decayTick(); // marks the chunks, in use
                releaseOnAnotherThread(burst);
                ticking.releaseLargeSparesIfEmptied();
                assertThat(direct.metrics().largeChunks()).as("they served nothing since the tick: one spare kept")
                    .isEqualTo(1);
            } else {
                assertThat(direct.metrics().largeChunks()).as("to the reuse pool: one spare kept").isEqualTo(1);
            }
        } finally {
            ticking.releaseThreadResources();
        }
        assertThat(direct.metrics().largeChunks()).isZero();
        assertThat(direct.metrics().reservedBytes()).isZero();
    }

    /** Large buffers on {@code ticking} that fill several chunks. */
    private List<MagByteBuf> largeBurst(ThreadMagazine ticking) {
        List<MagByteBuf> burst = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            burst.add(keep(ticking.allocateLarge(100_000, Integer.MAX_VALUE)));
        }
        return burst;
    }

    @Test
    void aLargeChunkThatServesAllocationsBetweenTicksIsKept() {
        for (int tick = 0; tick < 4; tick++) {
            magazine.allocateLarge(100_000, Integer.MAX_VALUE).release();
            assertThat(magazine.decayTick()).isTrue();
        }
        assertThat(pool.metrics().largeChunks()).isEqualTo(1);
    }

    @Test
    void anEventLoopGivesItsPeakBackWithNoTrim() throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().reuseBudgetBytes(0).decayMillis(50).build();
        EventExecutor loop = new DefaultEventExecutor();
        try {
            List<ByteBuf> peak = onLoop(loop, () -> {
                List<ByteBuf> buffers = new ArrayList<>();
                for (int i = 0; i < 400; i++) {
                    buffers.add(alloc.directBuffer(i % 2 == 0 ? 1024 : 60_000));
                }
                return buffers;
            });
            assertThat(alloc.metric().usedDirectMemory()).isGreaterThan(60_000L * 200);
            releaseOnAnotherThread(peak);
            // Within a few ticks, the loop's own tasks give every chunk back: nothing is live.
            assertThat(usedDirectWithin(alloc, 10_000)).isZero();
            // The loop still works, and takes what it needs again.
            onLoop(loop, () -> alloc.directBuffer(1024).release());
            assertThat(alloc.metric().usedDirectMemory()).isPositive();
            assertThat(usedDirectWithin(alloc, 10_000)).isZero();
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void anEventLoopMagazineWithDecayOffKeepsItsChunks() throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().reuseBudgetBytes(0).decayMillis(0).build();
        EventExecutor loop = new DefaultEventExecutor();
        try {
            onLoop(loop, () -> alloc.directBuffer(1024).release());
            long held = alloc.metric().usedDirectMemory();
            assertThat(held).isPositive();
            // Ten of the previous test's periods: with ticks, they would all have run.
            Thread.sleep(500);
            assertThat(alloc.metric().usedDirectMemory()).isEqualTo(held);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    private static <T> T onLoop(EventExecutor loop, Callable<T> task) throws Exception {
        try {
            return loop.submit(task).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    private static void onLoop(EventExecutor loop, Runnable task) throws Exception {
        onLoop(loop, () -> {
            task.run();
            return null;
        });
    }

    /** The used direct memory once it reaches 0, or what it is after {@code millis}. */
    private static long usedDirectWithin(MagazineByteBufAllocator alloc, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long used;
        while ((used = alloc.metric().usedDirectMemory()) != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return used;
    }
}
