package io.github.magalloc.workload;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A traffic peak on event loops and what the allocator holds after it: {@code loops} Netty event executors allocate
 * live buffers of mixed sizes (64 B to 64 KiB, log-uniform, seeded) until together they hold {@code peakBytes}; the
 * buffers are shuffled and released, each by the loop that allocated it or all by the calling thread; then the loops
 * carry {@link After} traffic while the allocator's used memory (heap + direct, its own metric) is sampled. Nobody
 * calls a trim method.
 *
 * <p>Used by the footprint report's "after a peak" row, the CI test of the bound, and the soak.
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
        /** Each loop releases the buffers it allocated. */
        OWNER,
        /** The calling thread (not an event loop) releases all of them: every release comes from another thread. */
        OTHER
    }

    private static final int[] MOVING_SIZES = {1024, 2048, 4096, 256, 8192, 512};

    private final ByteBufAllocator allocator;
    private final boolean direct;
    private final List<EventExecutor> loops = new ArrayList<>();
    private final List<ScheduledFuture<?>> traffic = new ArrayList<>();
    /** {@link System#nanoTime()} when the last {@link #peak} had released every buffer. */
    private long releasedNanos;

    public PeakScenario(ByteBufAllocator allocator, boolean direct, int loopCount) {
        this.allocator = allocator;
        this.direct = direct;
        for (int i = 0; i < loopCount; i++) {
            loops.add(new DefaultEventExecutor());
        }
    }

    /**
     * Runs the peak: allocates until the loops together hold {@code peakBytes}, then releases every buffer in a
     * shuffled order. Returns the bytes the peak held (requested sizes).
     */
    public long peak(long peakBytes, Releaser releaser, long seed) throws Exception {
        Random random = new Random(seed);
        List<List<ByteBuf>> held = new ArrayList<>();
        long perLoop = peakBytes / loops.size();
        long total = 0;
        for (EventExecutor loop : loops) {
            long loopSeed = random.nextLong();
            List<ByteBuf> buffers = get(loop.submit(() -> allocateUntil(perLoop, new Random(loopSeed))));
            for (ByteBuf buf : buffers) {
                total += buf.capacity();
            }
            held.add(buffers);
        }
        if (releaser == Releaser.OWNER) {
            for (int i = 0; i < loops.size(); i++) {
                List<ByteBuf> buffers = held.get(i);
                long shuffleSeed = random.nextLong();
                get(loops.get(i).submit(() -> shuffleAndRelease(buffers, new Random(shuffleSeed))));
            }
        } else {
            List<ByteBuf> all = new ArrayList<>();
            held.forEach(all::addAll);
            shuffleAndRelease(all, random);
        }
        releasedNanos = System.nanoTime();
        return total;
    }

    /** Starts the traffic that follows the peak on every loop; {@link #close} stops it. */
    public void startAfter(After after) {
        if (after == After.IDLE) {
            return;
        }
        for (EventExecutor loop : loops) {
            long start = System.nanoTime();
            traffic.add(loop.scheduleAtFixedRate(() -> {
                int size = after == After.LIGHT ? LIGHT_SIZE
                    : MOVING_SIZES[(int) ((System.nanoTime() - start) / 1_000_000_000L % MOVING_SIZES.length)];
                allocate(size).release();
            }, 0, LIGHT_PERIOD_MS, TimeUnit.MILLISECONDS));
        }
    }

    /** Heap plus direct memory the allocator reports in use. */
    public long usedMemory() {
        return AllocatorKind.usedMemory(allocator);
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

    /** Stops the traffic and shuts the loops down, waiting for them to end. */
    public void close() throws InterruptedException {
        for (ScheduledFuture<?> task : traffic) {
            task.cancel(false);
        }
        for (EventExecutor loop : loops) {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
        for (EventExecutor loop : loops) {
            loop.terminationFuture().await();
        }
    }

    private List<ByteBuf> allocateUntil(long bytes, Random random) {
        List<ByteBuf> buffers = new ArrayList<>();
        long total = 0;
        while (total < bytes) {
            ByteBuf buf = allocate(randomSize(random));
            buffers.add(buf);
            total += buf.capacity();
        }
        return buffers;
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

    private static <T> T get(io.netty.util.concurrent.Future<T> future) throws Exception {
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
