package io.github.magalloc;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An allocator nobody references any more is collected with its memory while the threads that used it run on: 1,000
 * allocators, each used once on a live event loop and once on a plain thread, then dropped, leave at most 16 MiB of
 * heap and 16 MiB of direct memory after the collector ran. What holds a pool's parts otherwise: each thread's
 * thread-local entries (which hold its magazine and its buffer-object cache weakly), the event loop's periodic decay
 * task (which holds its magazine weakly) and the flight recorder's watch list (weakly, pruned as it grows); the direct
 * slabs of a pool nothing reaches go back through its cleaner.
 *
 * <p>A JVM of its own (heap and direct memory are global), with Netty's direct buffers freed only when asked
 * ({@code -Dio.netty.tryReflectionSetAccessible=true} and {@code java.nio} opened, as the benchmarks run): there the
 * collector alone gives no direct memory back, so only the cleaner can.
 */
class DroppedAllocatorsTest {
    private static final int ALLOCATORS = 1000;
    private static final long LIMIT_BYTES = 16L << 20;

    @Test
    void droppedAllocatorsLeaveAtMost16MiBOfHeapAnd16MiBOfDirectMemory() throws Exception {
        EventExecutor loop = new DefaultEventExecutor();
        ExecutorService plain = Executors.newSingleThreadExecutor();
        try {
            // Warm both threads and every class the rounds use, with an allocator dropped like the others.
            useOnce(new MagazineByteBufAllocator(true), loop, plain);
            long heapBefore = heapAfterCollection();
            long directBefore = directMemory();

            List<MagazineByteBufAllocator> alive = new ArrayList<>();
            for (int i = 0; i < ALLOCATORS; i++) {
                MagazineByteBufAllocator alloc = new MagazineByteBufAllocator(true);
                useOnce(alloc, loop, plain);
                alive.add(alloc);
            }
            long heapAlive = heapAfterCollection();
            long directAlive = directMemory();
            System.out.printf("%d allocators alive, each used once on an event loop and a plain thread: %.1f KiB of "
                + "heap and %.1f KiB of direct memory each%n", ALLOCATORS,
                (heapAlive - heapBefore) / 1024.0 / ALLOCATORS, (directAlive - directBefore) / 1024.0 / ALLOCATORS);
            assertThat(directAlive - directBefore).as("the allocators took direct memory").isGreaterThan(LIMIT_BYTES);
            alive.clear();

            long heapLeft = Long.MAX_VALUE;
            long directLeft = Long.MAX_VALUE;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((heapLeft > LIMIT_BYTES || directLeft > LIMIT_BYTES) && System.nanoTime() < deadline) {
                heapLeft = heapAfterCollection() - heapBefore;
                Thread.sleep(100); // the cleaners run on their own thread after the collection
                directLeft = directMemory() - directBefore;
            }
            assertThat(plain.isShutdown() || loop.isShuttingDown()).as("both threads still run").isFalse();
            System.out.printf("dropped: %.1f MiB of heap and %.1f MiB of direct memory left%n",
                heapLeft / 1048576.0, directLeft / 1048576.0);
            assertThat(heapLeft).as("heap left after %d allocators were dropped", ALLOCATORS)
                .isLessThanOrEqualTo(LIMIT_BYTES);
            assertThat(directLeft).as("direct memory left after %d allocators were dropped", ALLOCATORS)
                .isLessThanOrEqualTo(LIMIT_BYTES);
        } finally {
            plain.shutdown();
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /** A heap and a direct buffer allocated and released on the event loop, then on the plain thread. */
    private static void useOnce(ByteBufAllocator alloc, EventExecutor loop, ExecutorService plain) throws Exception {
        Runnable use = () -> {
            alloc.directBuffer(256).release();
            alloc.heapBuffer(256).release();
        };
        try {
            loop.submit(use).get(30, TimeUnit.SECONDS);
            plain.submit(use).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    private static long heapAfterCollection() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Direct memory as the JVM's process holds it: Netty's own count where it counts, else the JDK's. */
    private static long directMemory() {
        long netty = PlatformDependent.usedDirectMemory();
        if (netty >= 0) {
            return netty;
        }
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }
}
