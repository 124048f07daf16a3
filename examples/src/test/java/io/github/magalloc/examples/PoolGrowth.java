package io.github.magalloc.examples;

import io.netty.buffer.ByteBufAllocatorMetric;

/**
 * How much an allocator's memory grows over repeated round trips once warm. A buffer that a framework never
 * releases keeps its pooled memory for good (magalloc keeps no reference to buffers in use, so not even a garbage
 * collection gives it back): a leak shows as growth per round trip, while correct use levels off after warm-up.
 */
public final class PoolGrowth {
    /**
     * Round trips before the baseline, so that most chunks the workload needs anyway are there. With Reactor Netty's
     * shared event loops magalloc can still take a chunk now and then for the first 150 or so round trips;
     * {@link #LEVELS_OFF} allows for those.
     */
    public static final int WARMUP = 20;
    public static final int ROUNDS = 40;
    /** Growth allowed after warm-up: a few chunks. A 180 kB request body kept per round trip would be 7 MB. */
    public static final long LEVELS_OFF = 2 << 20;

    private PoolGrowth() {
    }

    /** A request and its response (or whatever one round of the workload is). */
    public interface RoundTrip {
        void run() throws Exception;
    }

    /** Bytes (heap + direct) the allocator held more after {@link #ROUNDS} round trips than after warm-up. */
    public static long measure(ByteBufAllocatorMetric metric, RoundTrip roundTrip) throws Exception {
        for (int i = 0; i < WARMUP; i++) {
            roundTrip.run();
        }
        long before = metric.usedHeapMemory() + metric.usedDirectMemory();
        for (int i = 0; i < ROUNDS; i++) {
            roundTrip.run();
        }
        return metric.usedHeapMemory() + metric.usedDirectMemory() - before;
    }
}
