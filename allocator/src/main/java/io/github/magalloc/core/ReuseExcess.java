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

    /**
     * Frees pooled slabs until the pool holds no more than its budget (or nothing a poll can take): the purge's work,
     * and, on the allocating thread, what any pool's retry on exhausted direct memory does first. A pending purge
     * then finds nothing to do.
     */
    void giveBackExcess() {
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
