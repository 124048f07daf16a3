package io.github.magalloc.workload;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A traffic peak and what the allocator holds after it: {@code loops} Netty event executors and {@code plainThreads}
 * plain threads (no event loop, no thread-local magazine) allocate live buffers of mixed sizes (64 B to 64 KiB,
 * log-uniform, seeded), writing a byte in each of their pages, until together they hold {@code peakBytes}; the buffers are shuffled and released, each by
 * the thread that allocated it or all by the calling thread; then every thread carries {@link After} traffic while
 * the allocator's used memory (heap + direct, its own metric) and the process's resident memory above its level just
 * before the peak are sampled. Nobody calls a trim method.
 *
 * <p>Used by the footprint report's "after a peak" rows, the CI tests of the bounds, and the soak.
 */
public final class PeakScenario {
    /** Smallest and largest buffer of the peak. */
    public static final int MIN_SIZE = 64;
    public static final int MAX_SIZE = 64 * 1024;
    /** Light traffic: every loop allocates and releases one buffer of this size per {@link #LIGHT_PERIOD_MS}. */
    public static final int LIGHT_SIZE = 1024;
    public static final int LIGHT_PERIOD_MS = 10;

    /** What the loops do after the peak. */
    public enum After {
        /** One {@link #LIGHT_SIZE} buffer allocated and released every {@link #LIGHT_PERIOD_MS} ms per loop. */
        LIGHT,
        /** Nothing: the loops are idle. */
        IDLE,
        /**
         * Light traffic whose size moves to another size class every second (1 KiB, 2 KiB, 4 KiB, 256 B, ...), so
         * that classes used at the peak and then by the traffic fall out of use one after another.
         */
        MOVING
    }

    /** Who releases the peak's buffers. */
    public enum Releaser {
        /** Each thread releases the buffers it allocated. */
        OWNER,
        /** The calling thread releases all of them: every release comes from another thread. */
        OTHER
    }

    /** The system's page size (4 KiB on x86-64 and most arm64 Linux systems): the unit memory becomes resident in. */
    private static final int PAGE_BYTES = 4096;
    private static final int[] MOVING_SIZES = {1024, 2048, 4096, 256, 8192, 512};

    private final ByteBufAllocator allocator;
    private final boolean direct;
    /** The event loops first, then the plain threads (each a scheduled executor of one thread). */
    private final List<ScheduledExecutorService> threads = new ArrayList<>();
    private final List<Future<?>> traffic = new ArrayList<>();
    /** {@link System#nanoTime()} when the last {@link #peak} had released every buffer. */
    private long releasedNanos;
    /** {@link Rss#bytes()} just before the last {@link #peak}. */
    private long rssBaseline;

    /** A peak on {@code loopCount} event loops. */
    public PeakScenario(ByteBufAllocator allocator, boolean direct, int loopCount) {
        this(allocator, direct, loopCount, 0);
    }

    /** A peak on {@code loopCount} event loops and {@code plainThreadCount} plain threads. */
    public PeakScenario(ByteBufAllocator allocator, boolean direct, int loopCount, int plainThreadCount) {
        this.allocator = allocator;
        this.direct = direct;
        for (int i = 0; i < loopCount; i++) {
            threads.add(new DefaultEventExecutor());
        }
        for (int i = 0; i < plainThreadCount; i++) {
            threads.add(Executors.newSingleThreadScheduledExecutor());
        }
    }

    /**
     * Runs the peak: reads the resident memory baseline, allocates until the threads together hold
     * {@code peakBytes} (each its share, all at once), then releases every buffer in a shuffled order. Returns the
     * bytes the peak held (requested sizes).
     */
    public long peak(long peakBytes, Releaser releaser, long seed) throws Exception {
        Random random = new Random(seed);
        long perThread = peakBytes / threads.size();
        rssBaseline = Rss.bytes();
        List<Future<List<ByteBuf>>> allocations = new ArrayList<>();
        for (ScheduledExecutorService thread : threads) {
            long threadSeed = random.nextLong();
            allocations.add(thread.submit(() -> allocateUntil(perThread, new Random(threadSeed))));
        }
        List<List<ByteBuf>> held = new ArrayList<>();
        long total = 0;
        for (Future<List<ByteBuf>> allocation : allocations) {
            List<ByteBuf> buffers = get(allocation);
            for (ByteBuf buf : buffers) {
                total += buf.capacity();
            }
            held.add(buffers);
        }
        if (releaser == Releaser.OWNER) {
            List<Future<Void>> releases = new ArrayList<>();
            for (int i = 0; i < threads.size(); i++) {
                List<ByteBuf> buffers = held.get(i);
                long shuffleSeed = random.nextLong();
                Callable<Void> release = () -> shuffleAndRelease(buffers, new Random(shuffleSeed));
                releases.add(threads.get(i).submit(release));
            }
            for (Future<Void> release : releases) {
                get(release);
            }
        } else {
            List<ByteBuf> all = new ArrayList<>();
            held.forEach(all::addAll);
            shuffleAndRelease(all, random);
        }
        releasedNanos = System.nanoTime();
        return total;
    }

    /** Starts the traffic that follows the peak on every thread; {@link #close} stops it. */
    public void startAfter(After after) {
        if (after == After.IDLE) {
            return;
        }
        for (ScheduledExecutorService thread : threads) {
            long start = System.nanoTime();
            traffic.add(thread.scheduleAtFixedRate(() -> {
                int size = after == After.LIGHT ? LIGHT_SIZE
                    : MOVING_SIZES[(int) ((System.nanoTime() - start) / 1_000_000_000L % MOVING_SIZES.length)];
                allocate(size).release();
            }, 0, LIGHT_PERIOD_MS, TimeUnit.MILLISECONDS));
        }
    }

    /** The {@code index}th thread: the event loops first, then the plain threads. */
    public ScheduledExecutorService thread(int index) {
        return threads.get(index);
    }

    /** Heap plus direct memory the allocator reports in use. */
    public long usedMemory() {
        return AllocatorKind.usedMemory(allocator);
    }

    /**
     * The process's resident memory above its level just before the peak, in bytes (-1 where it cannot be read).
     * Meaningful where the Java heap does not move it: {@code -Xms} equal to {@code -Xmx} with
     * {@code -XX:+AlwaysPreTouch}.
     */
    public long rssAboveBaseline() {
        long rss = Rss.bytes();
        return rss < 0 || rssBaseline < 0 ? -1 : rss - rssBaseline;
    }

    /** Waits until {@code seconds} after the peak's release, then returns {@link #usedMemory()}. */
    public long usedMemoryAt(double seconds) throws InterruptedException {
        long wait = releasedNanos + (long) (seconds * 1e9) - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        return usedMemory();
    }

    /**
     * Polls {@code used} every 50 ms until it is at most {@code bound} or {@code seconds} have passed since the peak's
     * release; returns the last value read.
     */
    public long awaitAtMost(LongSupplier used, long bound, double seconds) throws InterruptedException {
        return pollUntilAtMost(used, bound, releasedNanos + (long) (seconds * 1e9));
    }

    /**
     * Polls {@code value} every 50 ms until it is at most {@code bound} or {@link System#nanoTime()} passes
     * {@code deadlineNanos}; returns the last value read. For memory that an allocator gives back on its own time.
     */
    public static long pollUntilAtMost(LongSupplier value, long bound, long deadlineNanos)
        throws InterruptedException {
        long last = value.getAsLong();
        while (last > bound && System.nanoTime() < deadlineNanos) {
            Thread.sleep(50);
            last = value.getAsLong();
        }
        return last;
    }

    /** Seconds since the peak's release. */
    public double secondsSinceRelease() {
        return (System.nanoTime() - releasedNanos) / 1e9;
    }

    /** Stops the traffic and shuts the threads down, waiting for them to end. */
    public void close() throws InterruptedException {
        for (Future<?> task : traffic) {
            task.cancel(false);
        }
        for (ScheduledExecutorService thread : threads) {
            if (thread instanceof DefaultEventExecutor) {
                ((DefaultEventExecutor) thread).shutdownGracefully(0, 0, TimeUnit.SECONDS);
            } else {
                thread.shutdown();
            }
        }
        for (ScheduledExecutorService thread : threads) {
            thread.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    private List<ByteBuf> allocateUntil(long bytes, Random random) {
        List<ByteBuf> buffers = new ArrayList<>();
        long total = 0;
        while (total < bytes) {
            ByteBuf buf = allocate(randomSize(random));
            touchPages(buf);
            buffers.add(buf);
            total += buf.capacity();
        }
        return buffers;
    }

    /**
     * Writes a byte in every page of {@code buf}, as data read into it would: memory the C allocator hands out is not
     * resident until written (Netty zeroes direct memory on some JDKs and not on others).
     */
    private static void touchPages(ByteBuf buf) {
        for (int index = 0; index < buf.capacity(); index += PAGE_BYTES) {
            buf.setByte(index, 1);
        }
    }

    /** A buffer size of the peak's mix: {@link #MIN_SIZE} to {@link #MAX_SIZE}, log-uniform. */
    public static int randomSize(Random random) {
        double logRange = Math.log((double) MAX_SIZE / MIN_SIZE);
        return (int) Math.min(MAX_SIZE, Math.round(MIN_SIZE * Math.exp(random.nextDouble() * logRange)));
    }

    /** Releases every buffer of {@code buffers} in a shuffled order; returns null, for use as a task. */
    public static Void shuffleAndRelease(List<ByteBuf> buffers, Random random) {
        Collections.shuffle(buffers, random);
        for (ByteBuf buf : buffers) {
            buf.release();
        }
        return null;
    }

    private ByteBuf allocate(int size) {
        return direct ? allocator.directBuffer(size, size) : allocator.heapBuffer(size, size);
    }

    private static <T> T get(Future<T> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception) {
                throw (Exception) e.getCause();
            }
            throw e;
        }
    }
}
