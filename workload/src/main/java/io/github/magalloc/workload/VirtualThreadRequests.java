package io.github.magalloc.workload;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A server that runs each request on a virtual thread of its own (Helidon 4, Jetty 12 or Tomcat with virtual
 * threads, work handed off an event loop): a round starts {@code tasks} virtual threads, at most
 * {@code concurrency} at a time; each allocates {@link #SIZES one buffer of each size}, writes its pattern into
 * them, yields once (where a request would park on I/O), checks the pattern, releases them and ends. A task given
 * no allocator allocates nothing: the cost of the thread alone.
 *
 * <p>Virtual threads need JDK 21+; this class is compiled for 17 and reaches them through
 * {@code Thread.ofVirtual().factory()}, looked up once ({@link #virtualThreads()}).
 */
public final class VirtualThreadRequests {
    /** The buffers of one task: a header, a small body, a page, a large body. */
    public static final int[] SIZES = {256, 1024, 4096, 16384};
    /** A round: 100,000 tasks, at most 1,000 at a time. */
    public static final int DEFAULT_TASKS = 100_000;
    public static final int DEFAULT_CONCURRENCY = 1_000;

    private static final Optional<ThreadFactory> VIRTUAL_THREADS = lookUpVirtualThreads();

    private final ByteBufAllocator allocator;
    private final boolean direct;
    private final int concurrency;
    private final ThreadFactory threads;
    /** Tasks started and not yet ended. */
    private final AtomicInteger running = new AtomicInteger();
    /** The thread in {@link #runRound}, unparked by every task's end. */
    private volatile Thread waiter;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /**
     * Tasks on {@code threads} (normally {@link #virtualThreads()}) that allocate from {@code allocator} (null: no
     * buffers), direct or heap buffers, at most {@code concurrency} at a time.
     */
    public VirtualThreadRequests(ByteBufAllocator allocator, boolean direct, int concurrency, ThreadFactory threads) {
        if (concurrency <= 0) {
            throw new IllegalArgumentException("concurrency must be positive: " + concurrency);
        }
        this.allocator = allocator;
        this.direct = direct;
        this.concurrency = concurrency;
        this.threads = threads;
    }

    /** A factory of virtual threads, or empty before JDK 21. */
    public static Optional<ThreadFactory> virtualThreads() {
        return VIRTUAL_THREADS;
    }

    /** Why {@link #virtualThreads()} is empty, for a skip message. */
    public static String unavailableReason() {
        return "virtual threads need JDK 21+; this is " + System.getProperty("java.version");
    }

    private static Optional<ThreadFactory> lookUpVirtualThreads() {
        try {
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Object virtualBuilder = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual))
                .invoke();
            return Optional.of((ThreadFactory) lookup
                .findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class)).invoke(virtualBuilder));
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            return Optional.empty();
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.ofVirtual() is there but failed", e);
        }
    }

    /**
     * Runs {@code tasks} tasks and returns when all have ended; throws the first failure of any task (a byte that
     * changed, an allocator exception), so that nothing that went wrong on a virtual thread is lost. The caller
     * waits for a free place by parking, which allocates nothing (a semaphore's waiting node would be garbage whose
     * amount depends on how fast the tasks run, which is what is measured).
     */
    public void runRound(int tasks) {
        waiter = Thread.currentThread();
        for (int i = 0; i < tasks; i++) {
            awaitRunningBelow(concurrency);
            running.incrementAndGet();
            int task = i;
            threads.newThread(() -> {
                try {
                    runTask(task);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    running.decrementAndGet();
                    LockSupport.unpark(waiter);
                }
            }).start();
        }
        awaitRunningBelow(1);
        Throwable t = failure.getAndSet(null);
        if (t != null) {
            throw new IllegalStateException("a task failed", t);
        }
    }

    /** Parks until fewer than {@code bound} tasks run; every task's end unparks the waiter. */
    private void awaitRunningBelow(int bound) {
        while (running.get() >= bound) {
            LockSupport.park(this);
        }
    }

    private void runTask(int task) {
        if (allocator == null) {
            Thread.yield();
            return;
        }
        ByteBuf[] bufs = new ByteBuf[SIZES.length];
        for (int i = 0; i < bufs.length; i++) {
            bufs[i] = direct ? allocator.directBuffer(SIZES[i]) : allocator.heapBuffer(SIZES[i]);
            fill(bufs[i], pattern(task, i));
        }
        Thread.yield();
        for (int i = 0; i < bufs.length; i++) {
            check(bufs[i], pattern(task, i));
            bufs[i].release();
        }
    }

    private static long pattern(int task, int buffer) {
        return (task * 0x9E3779B97F4A7C15L) ^ buffer;
    }

    /**
     * Writes the task's pattern into the first and the last 8 bytes: a buffer another task also holds shows up as a
     * changed pattern, and the cost stays the allocator's rather than the memory bus's.
     */
    private static void fill(ByteBuf buf, long pattern) {
        buf.setLong(0, pattern);
        buf.setLong(buf.capacity() - Long.BYTES, pattern);
        buf.writerIndex(buf.capacity());
    }

    private static void check(ByteBuf buf, long pattern) {
        checkLong(buf, 0, pattern);
        checkLong(buf, buf.capacity() - Long.BYTES, pattern);
    }

    private static void checkLong(ByteBuf buf, int index, long pattern) {
        long value = buf.getLong(index);
        if (value != pattern) {
            throw new IllegalStateException("bytes " + index + ".." + (index + 7) + " of " + buf + " changed while the "
                + "task held it: " + Long.toHexString(value) + " instead of " + Long.toHexString(pattern));
        }
    }
}
