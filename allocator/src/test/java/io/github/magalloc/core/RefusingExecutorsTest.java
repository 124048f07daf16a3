package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.ThreadExecutorMap;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A maintenance task never fails an allocation or a release, and memory still comes back, on threads whose Netty
 * executor refuses tasks: Netty's microbenchmark harness executor (every {@code execute} and {@code schedule*} throws
 * {@code UnsupportedOperationException}, {@code inEventLoop} is true on its {@code FastThreadLocalThread}s), a custom
 * executor that is closed ({@code IllegalStateException}), and a loop that is shutting down
 * ({@code RejectedExecutionException}). Each thread gets a magazine of its own whose decay ticks run on its slow
 * paths (protocol 7 (decay)).
 */
class RefusingExecutorsTest {
    private static final long PERIOD_MILLIS = 20;
    /** What the light traffic holds: the 1 KiB class's chunks for one chunk's worth of buffers and one more. */
    private static final long LIGHT_TRAFFIC_BYTES = 3L * TestAccess.slabSizeFor(1024);

    @Test
    void harnessExecutorThreadsAllocateReleaseAndGiveMemoryBack() throws Exception {
        runOnThreadsOf(RefusingExecutor.harness());
    }

    @Test
    void aClosedCustomExecutorsThreadsAllocateReleaseAndGiveMemoryBack() throws Exception {
        runOnThreadsOf(new RefusingExecutor(() -> new IllegalStateException("executor closed")));
    }

    /**
     * Netty's own loop, shut down (it then rejects every task) while its thread still runs the task that
     * allocates: the magazine is made there, its ticks are refused, and the thread's end hands it over.
     */
    @Test
    @SuppressWarnings("deprecation") // shutdown(): the one way to make a loop refuse tasks while its task still runs
    void aLoopThatIsShuttingDownAllocatesAndReleases() throws Exception {
        MagazineByteBufAllocator alloc = newAllocator();
        EventExecutor loop = new DefaultEventExecutor();
        Future<Long> held = loop.submit(() -> {
            loop.shutdown();
            assertThat(loop.isShutdown()).isTrue();
            allocateEverySizeAndRelease(alloc);
            return alloc.metric().usedDirectMemory();
        });
        assertThat(held.get(30, TimeUnit.SECONDS)).as("the loop's magazine took chunks").isPositive();
        assertThat(loop.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        // The thread ended: its magazine's chunks went back with it.
        assertThat(usedDirectWithin(alloc, 0, 10_000)).isZero();
        assertThat(alloc.metric().endedThreadMagazines(true)).isEqualTo(1);
    }

    private static MagazineByteBufAllocator newAllocator() {
        return MagazineByteBufAllocator.builder().reuseBudgetBytes(0).decayMillis(PERIOD_MILLIS).build();
    }

    /**
     * On a thread made by {@code ThreadExecutorMap.apply(factory, executor)} (so {@code executor} is its current
     * executor, as in Netty's harness): every size class, large and huge buffers, a large chunk emptied by a release on
     * another thread (which asks the executor for a collect) and chunks emptied the same way; none of it throws. Then
     * light traffic in one class with refills: within a few periods the magazine holds only what that traffic uses.
     */
    private static void runOnThreadsOf(EventExecutor executor) throws Exception {
        MagazineByteBufAllocator alloc = newAllocator();
        ThreadFactory factory = ThreadExecutorMap.apply(new DefaultThreadFactory("refusing-executor"), executor);
        ExecutorService thread = Executors.newSingleThreadExecutor(factory);
        try {
            List<ByteBuf> peak = on(thread, () -> {
                assertThat(ThreadExecutorMap.currentExecutor()).isSameAs(executor);
                allocateEverySizeAndRelease(alloc);
                List<ByteBuf> buffers = new ArrayList<>();
                for (int i = 0; i < 600; i++) {
                    buffers.add(alloc.directBuffer(i % 3 == 0 ? 100_000 : 64 + 16 * i));
                }
                return buffers;
            });
            assertThat(alloc.metric().threadLocalMagazines(true)).as("the thread has a magazine of its own")
                .isEqualTo(1);
            long peakBytes = alloc.metric().usedDirectMemory();
            assertThat(peakBytes).isGreaterThan(20L << 20);
            // Released on this thread, not the owner: segments go to remote queues, large chunks empty and ask the
            // owner's executor for a collect, which it refuses.
            peak.forEach(ByteBuf::release);

            long light = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // only a bug reaches it
            while (System.nanoTime() < deadline) {
                light = on(thread, () -> {
                    lightTrafficWithRefills(alloc);
                    return alloc.metric().usedDirectMemory();
                });
                if (light <= LIGHT_TRAFFIC_BYTES) {
                    break;
                }
                Thread.sleep(PERIOD_MILLIS);
            }
            assertThat(light).as("held after the peak of %d bytes", peakBytes).isLessThanOrEqualTo(LIGHT_TRAFFIC_BYTES);
        } finally {
            thread.shutdown();
            assertThat(thread.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(usedDirectWithin(alloc, 0, 10_000)).as("after the thread ended").isZero();
    }

    private static void allocateEverySizeAndRelease(MagazineByteBufAllocator alloc) {
        List<ByteBuf> buffers = new ArrayList<>();
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            buffers.add(alloc.directBuffer(SizeClasses.sizeOf(sizeClass)));
            buffers.add(alloc.heapBuffer(SizeClasses.sizeOf(sizeClass)));
        }
        buffers.add(alloc.directBuffer(200_000));
        buffers.add(alloc.directBuffer(4 << 20)); // huge
        buffers.forEach(ByteBuf::release);
    }

    /** Two chunks' worth of 1 KiB buffers taken and given back: the second chunk's first allocation is a refill. */
    private static void lightTrafficWithRefills(MagazineByteBufAllocator alloc) {
        int perChunk = TestAccess.slabSizeFor(1024) / 1024;
        List<ByteBuf> buffers = new ArrayList<>();
        for (int i = 0; i < perChunk + 1; i++) {
            buffers.add(alloc.directBuffer(1024));
        }
        buffers.forEach(ByteBuf::release);
    }

    private static <T> T on(ExecutorService thread, Callable<T> task) throws Exception {
        try {
            return thread.submit(task).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    /** The used direct memory once it is at most {@code bytes}, or what it is after {@code millis}. */
    private static long usedDirectWithin(MagazineByteBufAllocator alloc, long bytes, long millis)
        throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long used;
        while ((used = alloc.metric().usedDirectMemory()) > bytes && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return used;
    }
}
