package io.github.magalloc.core;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test's stand-in for a thread magazine under a {@link MagazineDecay}: counts the ticks that run on one thread and
 * answers whether it still holds chunks as the test sets it; every other call does nothing.
 */
final class TickCountingTarget implements MagazineDecay.Target {
    /** Ticks run on {@link #counted}; read from any thread. */
    final AtomicInteger ticks = new AtomicInteger();
    /** What a tick answers: whether the magazine still holds a chunk (else the ticks stop). */
    volatile boolean holdsChunks = true;
    private final Thread counted;

    /** Counts the ticks that run on {@code counted}. */
    TickCountingTarget(Thread counted) {
        this.counted = counted;
    }

    @Override
    public boolean decayTick() {
        if (Thread.currentThread() == counted) {
            ticks.incrementAndGet();
        }
        return holdsChunks;
    }

    @Override
    public boolean isOwnedByCurrentThread() {
        return true;
    }

    @Override
    public void releaseLargeSparesIfEmptied() {
    }

    @Override
    public void doOwnerWork() {
    }

    @Override
    public void requestOwnerWork() {
    }
}
