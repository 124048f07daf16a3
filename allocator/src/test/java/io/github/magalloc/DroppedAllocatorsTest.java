package io.github.magalloc;

import io.github.magalloc.core.RefusingExecutor;
import io.github.magalloc.core.RefusingLoop;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An allocator nobody references any more is collected with its memory while the threads that used it run on: 1,000
 * allocators, each used once on a live event loop and once on a plain thread, then dropped, leave at most 16 MiB of
 * heap and 16 MiB of direct memory after the collector ran. What holds a pool's parts otherwise: each thread's
 * thread-local entries (which hold its magazine and its buffer-object cache weakly), the event loop's periodic decay
 * task (which holds its magazine weakly) and the flight recorder's watch list (weakly, pruned as it grows); the direct
 * slabs of a pool nothing reaches go back through its cleaner.
 *
 * <p>Four threads that go on living hold nothing either: an event loop that only allocated huge buffers (its magazine
 * never takes a chunk, so no tick runs), an event loop whose decay ticks stopped (it refused a task, and the owner took
 * the ticks over on its slow paths), a harness thread whose executor refuses every task, and a virtual thread that allocated and still runs (a connection's thread parked
 * between requests). Each of {@value #FEW} allocators used there is collected, and the memory comes back.
 *
 * <p>A JVM of its own (heap and direct memory are global), with Netty's direct buffers freed only when asked
 * ({@code -Dio.netty.tryReflectionSetAccessible=true} and {@code java.nio} opened, as the benchmarks run): there the
 * collector alone gives no direct memory back, so only the cleaner can.
 */
class DroppedAllocatorsTest {
    private static final int ALLOCATORS = 1000;
    private static final long LIMIT_BYTES = 16L << 20;
    /** Allocators dropped in each of the live-thread cases. */
    private static final int FEW = 20;
    /** Above the pooled sizes: never takes a chunk. */
    private static final int HUGE = 4 << 20;
    /** Served by a large chunk, which a release from another thread can empty. */
    private static final int LARGE = 64 * 1024;
    /** Collections (100 ms apart) to wait for dropped allocators to go: only a leak reaches it on a busy machine. */
    private static final int COLLECTIONS = 300;

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

    @Test
    void anEventLoopThatOnlyAllocatedHugeBuffersHoldsNoDroppedAllocator() throws Exception {
        EventExecutor loop = new DefaultEventExecutor();
        try {
            long directBefore = directMemory();
            List<WeakReference<Object>> dropped = new ArrayList<>();
            for (int i = 0; i < FEW; i++) {
                MagazineByteBufAllocator alloc = new MagazineByteBufAllocator(true);
                onLoop(loop, () -> {
                    alloc.directBuffer(HUGE).release();
                    alloc.heapBuffer(HUGE).release();
                    return null;
                });
                dropped.add(new WeakReference<>(alloc));
            }
            assertCollectedWithTheirMemory(dropped, directBefore);
            assertThat(loop.isShuttingDown()).as("the loop still runs").isFalse();
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * The loop refuses the task a release from another thread asks of it (a large chunk emptied), so the owner takes
     * its ticks over on its slow paths at its next large allocation and cancels the loop's: no tick of the loop will
     * run for it again.
     */
    @Test
    void anEventLoopWhoseDecayTicksStoppedHoldsNoDroppedAllocator() throws Exception {
        RefusingLoop loop = new RefusingLoop("refusing-when-asked");
        try {
            long directBefore = directMemory();
            List<WeakReference<Object>> dropped = new ArrayList<>();
            for (int i = 0; i < FEW; i++) {
                MagazineByteBufAllocator alloc = new MagazineByteBufAllocator(true);
                ByteBuf large = onLoop(loop, () -> alloc.directBuffer(LARGE));
                loop.refusing = true;
                try {
                    large.release(); // empties the loop's large chunk: the loop is asked to collect, and refuses
                } finally {
                    loop.refusing = false;
                }
                assertThat(loop.refused()).as("tasks the loop refused").isEqualTo(i + 1);
                onLoop(loop, () -> alloc.directBuffer(LARGE).release()); // the owner's slow path: ticks move here
                dropped.add(new WeakReference<>(alloc));
            }
            assertCollectedWithTheirMemory(dropped, directBefore);
            assertThat(loop.isShuttingDown()).as("the loop still runs").isFalse();
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * A thread of Netty's microbenchmark harness: its executor refuses every task, so the magazine's ticks run on its
     * slow paths and no tick ever weakens a link: the thread links the magazine weakly for good.
     */
    @Test
    void aHarnessThreadHoldsNoDroppedAllocator() throws Exception {
        ExecutorService harness = RefusingExecutor.harnessThread("harness-dropped");
        try {
            long directBefore = directMemory();
            List<WeakReference<Object>> dropped = new ArrayList<>();
            for (int i = 0; i < FEW; i++) {
                MagazineByteBufAllocator alloc = new MagazineByteBufAllocator(true);
                onThread(harness, () -> {
                    useOnce(alloc);
                    return null;
                });
                dropped.add(new WeakReference<>(alloc));
            }
            assertCollectedWithTheirMemory(dropped, directBefore);
            assertThat(onThread(harness, () -> Thread.currentThread().isAlive())).as("the harness thread still runs")
                .isTrue();
        } finally {
            harness.shutdown();
            assertThat(harness.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aRunningVirtualThreadHoldsNoDroppedAllocator() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads: JDK 21+");
        long directBefore = directMemory();
        List<WeakReference<Object>> dropped = new ArrayList<>();
        List<Thread> parked = new ArrayList<>();
        CountDownLatch end = new CountDownLatch(1);
        try {
            for (int i = 0; i < FEW; i++) {
                dropped.add(usedOnAVirtualThreadThatParks(parked, end));
            }
            assertCollectedWithTheirMemory(dropped, directBefore);
            assertThat(parked).as("the virtual threads still run").allMatch(Thread::isAlive);
        } finally {
            end.countDown();
            for (Thread thread : parked) {
                thread.join();
            }
        }
    }

    /**
     * An allocator used on a new virtual thread, which then parks until {@code end}: the thread takes it from a holder
     * it empties, in a frame that returns before it parks, so that only magalloc's own links could keep it.
     */
    private static WeakReference<Object> usedOnAVirtualThreadThatParks(List<Thread> parked, CountDownLatch end)
        throws InterruptedException {
        AtomicReference<ByteBufAllocator> handed = new AtomicReference<>(new MagazineByteBufAllocator(true));
        WeakReference<Object> allocator = new WeakReference<>(handed.get());
        CountDownLatch used = new CountDownLatch(1);
        parked.add(startVirtual(() -> {
            useOnce(handed.getAndSet(null));
            used.countDown();
            awaitQuietly(end); // a connection's thread between requests
        }));
        assertThat(used.await(30, TimeUnit.SECONDS)).as("the virtual thread allocated").isTrue();
        return allocator;
    }

    /** Small and large buffers, heap and direct, allocated and released. */
    private static void useOnce(ByteBufAllocator alloc) {
        alloc.directBuffer(256).release();
        alloc.heapBuffer(256).release();
        alloc.directBuffer(LARGE).release();
    }

    /** Waits until every allocator is collected (a bound only a leak reaches), then for their direct memory. */
    private static void assertCollectedWithTheirMemory(List<WeakReference<Object>> dropped, long directBefore)
        throws InterruptedException {
        long directLeft = Long.MAX_VALUE;
        for (int i = 0; i < COLLECTIONS && (held(dropped) > 0 || directLeft > LIMIT_BYTES); i++) {
            System.gc();
            Thread.sleep(100); // the cleaners run on their own thread after the collection
            directLeft = directMemory() - directBefore;
        }
        assertThat(held(dropped)).as("dropped allocators still reachable, of %d", dropped.size()).isZero();
        assertThat(directLeft).as("direct memory left after the allocators were dropped").isLessThanOrEqualTo(
            LIMIT_BYTES);
    }

    private static long held(List<WeakReference<Object>> dropped) {
        return dropped.stream().filter(ref -> ref.get() != null).count();
    }

    private static <T> T onLoop(EventExecutor loop, Callable<T> work) throws Exception {
        return onThread(loop, work);
    }

    private static <T> T onThread(ExecutorService thread, Callable<T> work) throws Exception {
        try {
            return thread.submit(work).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code Thread.ofVirtual().start(task)}, by name: the tests compile for JDK 17. */
    private static Thread startVirtual(Runnable task) {
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Object ofVirtual = lookup.findStatic(Thread.class, "ofVirtual",
                MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual"))).invoke();
            return (Thread) lookup.findVirtual(builder, "start", MethodType.methodType(Thread.class, Runnable.class))
                .invoke(ofVirtual, task);
        } catch (Throwable e) {
            throw new AssertionError("Thread.ofVirtual() failed", e);
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
