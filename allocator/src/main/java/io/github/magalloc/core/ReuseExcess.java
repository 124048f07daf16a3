package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;

import java.util.function.Consumer;

/**
 * Gives back what the {@link ReusePool} holds above its budget, a delay after it went above (protocol 3a (the reuse
 * pool's excess)). Traffic that comes in waves (requests in flight rising and falling every few tens of
 * milliseconds, as virtual threads do) empties more chunks than the budget at every ebb and needs them again at
 * the next flood: freed at once, they would go to the system and come back from it every wave. Kept up to the
 * pool's ceiling for a delay, they serve the next wave; once the waves stop, the excess goes back. Large chunks'
 * slabs swing the same way when a queue of large buffers fills and drains ({@link LargeSlabMisses}).
 *
 * <p>Invariant, whenever no purge runs: {@code pooledBytes > budget  =>  a purge is pending} ({@link DueTask}: an
 * offer adds its bytes to the pool's and then reads the purge's flag; the purge clears the flag and then reads the
 * pool's bytes).
 */
final class ReuseExcess {
    /**
     * The excess of every direct pool alive, weakly: the direct memory limit is one for the JVM, so an allocation that
     * finds it reached gives back every pool's excess before its retry ({@link #giveBackEveryDirectPoolsExcess}).
     */
    private static final WatchList<ReuseExcess> DIRECT_POOLS = new WatchList<>();

    private final ReusePool reuse;
    private final Consumer<Slab> free;
    private final DueTask purge;

    /** {@code free} gives a slab taken out of {@code reuse} back to the system. */
    ReuseExcess(ReusePool reuse, Consumer<Slab> free, BackgroundThread.Scheduler scheduler, long delayMillis) {
        this.reuse = reuse;
        this.free = free;
        // With no thread to wait on, the pool keeps its budget rather than an excess nobody will purge.
        this.purge = new DueTask(scheduler, () -> delayMillis, this::isAboveBudget, this::giveBackExcess, true);
    }

    /**
     * Any thread, cold, after its offer to the pool succeeded (the offer's add to the pool's bytes is the write of
     * the handshake): asks for a purge if the pool is above its budget and none is pending.
     */
    void afterOffer() {
        purge.request();
    }

    /** The pending purge: frees down to the budget, then clears the flag and looks again (the handshake's read). */
    void purge() {
        purge.run();
    }

    private boolean isAboveBudget() {
        return reuse.pooledBytes() > reuse.budget();
    }

    /** Makes {@link #giveBackEveryDirectPoolsExcess} reach {@code excess} while its pool lives. */
    static void watchDirect(ReuseExcess excess) {
        DIRECT_POOLS.add(excess);
    }

    /**
     * A thread whose slab allocation found direct memory exhausted: gives back what every direct pool holds above its
     * budget, on this thread, before its retry. Cold. A pending purge then finds nothing to do, so the invariant
     * holds: no pool is left above its budget.
     */
    static void giveBackEveryDirectPoolsExcess() {
        DIRECT_POOLS.forEach(ReuseExcess::giveBackExcess);
    }

    /** Frees pooled slabs until the pool holds no more than its budget (or nothing a poll can take). */
    private void giveBackExcess() {
        Slab slab;
        while (isAboveBudget() && (slab = reuse.pollAny()) != null) {
            free.accept(slab);
        }
    }

    /** True while a purge is pending; tests read it. */
    boolean isPurgePending() {
        return purge.isPending();
    }
}
