package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
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
