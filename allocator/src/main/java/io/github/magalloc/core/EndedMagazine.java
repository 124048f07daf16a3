package io.github.magalloc.core;

/**
 * The hand-over of a thread magazine whose thread has ended (protocol 4 (ended threads)): from the end on,
 * whoever holds this lock owns the magazine's lists. Nobody allocates from it any more; every release of its
 * buffers goes back under the lock, and a chunk is retired by the release of its last buffer, on whichever thread,
 * with no {@code trim()}. Referenced only by its magazine, which only its chunks reference: once the last chunk is
 * retired, both are garbage.
 *
 * <p>Invariant (ended threads hold nothing for good): after {@link #takeOver}, every segment released into an
 * ended magazine reaches its chunk's local list under the lock, so the local counts are exact and a parked chunk
 * is retired when its count reaches the segment count; {@code endedThreadsBytes} is 0 once every buffer of the
 * ended threads is released.
 */
final class EndedMagazine {
    private final ThreadMagazine magazine;
    private final PaddedSpinLock lock = new PaddedSpinLock();
    /** What a lock holder retired, given back by it right after its unlock ({@link #unlock}). */
    final GivenBackAfterUnlock givenBackAfterUnlock = new GivenBackAfterUnlock();

    EndedMagazine(ThreadMagazine magazine) {
        this.magazine = magazine;
    }

    /**
     * Takes the magazine over, once. Under the lock: publish the hand-over (a volatile store of the owner id), so
     * that releasers from then on wait for the lock; then park every current chunk, drain every remote queue
     * waiting for claimed slots, and retire the chunks that are entirely free. A releaser that read the old owner id
     * queues its segment: if its claim came before the drain's read of the producer index, the drain waits for it;
     * if after, the store of the owner id came before its claim, so its second look at the owner id
     * ({@link ThreadMagazine#releaseFromOtherThread}) sees the end and it sweeps the queues itself.
     */
    void takeOver() {
        lock.lock();
        try {
            magazine.publishEnded(this);
            ChunkSupply supply = magazine.supply;
            // Counted before any chunk can be retired (only the lock holder, we, can retire): retiring subtracts.
            long heldBytes = magazine.chunkBytes();
            supply.context.metrics.magazineEnded(heldBytes);
            magazine.releaseThreadResources();
            magazine.parkCurrentChunks();
            magazine.collectAllRemoteReleases(true);
            Thread owner = magazine.ownerThread.get();
            supply.context.events.magazineEnded(magazine.threadId, owner == null ? null : owner.getName(),
                owner != Thread.currentThread(), heldBytes, magazine.chunkBytes(), magazine.chunkCount(),
                supply.context.metrics.endedThreadsBytes());
        } finally {
            unlock();
        }
    }

    /** Any thread: a buffer of the ended magazine is released; its segment goes back under the lock. */
    void release(SizeClassChunk chunk, int segment) {
        lock.lock();
        try {
            magazine.releaseLocal(chunk, segment);
        } finally {
            unlock();
        }
    }

    /**
     * Any thread whose release raced with the end (its segment is in a queue the end's drain may have missed): drains
     * every queue under the lock, waiting for it if it is busy. The releaser sweeps itself rather than asking the
     * holder to ({@link PaddedSpinLock}: nobody leaves work for the holder). Never called with the lock held.
     */
    void sweepRemoteReleases() {
        lock.lock();
        try {
            magazine.collectAllRemoteReleases(false);
        } finally {
            unlock();
        }
    }

    /** Unlocks, then gives back what this holder retired under the lock ({@link GivenBackAfterUnlock}). */
    private void unlock() {
        if (!givenBackAfterUnlock.any()) {
            lock.unlock();
            return;
        }
        GivenBackAfterUnlock.Batch batch = givenBackAfterUnlock.takeAll();
        lock.unlock();
        batch.giveBack(magazine.supply);
    }
}
