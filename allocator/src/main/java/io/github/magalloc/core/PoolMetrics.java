package io.github.magalloc.core;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters of one memory pool, read by the allocator's metric. Updated on cold paths only (slabs and chunks come
 * and go, magazines end), never per pooled buffer; reads are snapshots.
 */
public final class PoolMetrics {
    /** Counters at zero, for a new pool. */
    public PoolMetrics() {
    }

    /** Bytes of every slab alive: in chunks, in the reuse pool, and huge buffers. */
    private final AtomicLong reservedBytes = new AtomicLong();
    private final AtomicLong hugeBytes = new AtomicLong();
    /** Large chunks whose slab has not gone back yet (held by magazines, or detached with live buffers). */
    private final AtomicLong largeChunks = new AtomicLong();
    private final AtomicLong slabsAllocated = new AtomicLong();
    private final AtomicLong slabsFreed = new AtomicLong();
    /** Bytes of every slab freed since the pool was made. */
    private final AtomicLong freedBytes = new AtomicLong();
    /** Thread magazines ended because their thread exited, detached or died. */
    private final AtomicLong magazinesEnded = new AtomicLong();
    /**
     * Slab bytes of size-classed chunks held by ended magazines. Invariant: each such chunk is retired when its last
     * buffer is released, so once every buffer allocated by ended threads is released this is 0.
     */
    private final AtomicLong endedThreadsBytes = new AtomicLong();
    private final AtomicLongArray chunksPerClass = new AtomicLongArray(SizeClasses.COUNT);
    private final AtomicLongArray activationsPerClass = new AtomicLongArray(SizeClasses.COUNT);
    /** The {@link RequestCounts} of every ended thread magazine, added when it ended. */
    private final AtomicLongArray endedRequests = new AtomicLongArray(2 * SizeClasses.COUNT);

    /** An ended magazine's request counts join the pool's; the magazine counts no more. */
    void addEndedRequests(RequestCounts requests) {
        long[] counts = RequestCounts.newTotals();
        requests.addTo(counts);
        for (int i = 0; i < counts.length; i++) {
            endedRequests.addAndGet(i, counts[i]);
        }
    }

    /** Adds the ended magazines' request counts to {@code totals} ({@link RequestCounts#addTo}'s layout). */
    void sumEndedRequests(long[] totals) {
        for (int i = 0; i < totals.length; i++) {
            totals[i] += endedRequests.get(i);
        }
    }

    /** A chunk was put to use by a magazine: new, or taken whole from the reuse pool. */
    void chunkActivated(int sizeClass) {
        chunksPerClass.incrementAndGet(sizeClass);
        activationsPerClass.incrementAndGet(sizeClass);
    }

    void chunkRetired(int sizeClass) {
        chunksPerClass.decrementAndGet(sizeClass);
    }

    void slabAllocated(int size) {
        reservedBytes.addAndGet(size);
        slabsAllocated.incrementAndGet();
    }

    void slabFreed(int size) {
        reservedBytes.addAndGet(-size);
        slabsFreed.incrementAndGet();
        freedBytes.addAndGet(size);
    }

    void hugeBufferAllocated(int size) {
        hugeBytes.addAndGet(size);
    }

    void hugeBufferFreed(int size) {
        hugeBytes.addAndGet(-size);
    }

    void largeChunkCreated() {
        largeChunks.incrementAndGet();
    }

    void largeChunkFreed() {
        largeChunks.decrementAndGet();
    }

    /** A thread magazine ended holding {@code heldBytes} of size-classed chunks. */
    void magazineEnded(long heldBytes) {
        magazinesEnded.incrementAndGet();
        endedThreadsBytes.addAndGet(heldBytes);
    }

    /** A chunk of an ended magazine was retired. */
    void endedChunkRetired(int chunkBytes) {
        endedThreadsBytes.addAndGet(-chunkBytes);
    }

    /**
     * Bytes of every slab alive: in chunks, in the reuse pool, and huge buffers.
     *
     * @return the bytes, 0 or more
     */
    public long reservedBytes() {
        return reservedBytes.get();
    }

    /**
     * Bytes of the huge buffers alive (above the pooling limit).
     *
     * @return the bytes of their slabs, 0 or more
     */
    public long hugeBytes() {
        return hugeBytes.get();
    }

    /**
     * Large chunks whose slab has not gone back yet.
     *
     * @return the number of large chunks, 0 or more
     */
    public long largeChunks() {
        return largeChunks.get();
    }

    /**
     * Slabs taken from the system since the pool was made.
     *
     * @return the count, never decreasing
     */
    public long slabsAllocated() {
        return slabsAllocated.get();
    }

    /**
     * Slabs given back to the system since the pool was made.
     *
     * @return the count, never decreasing
     */
    public long slabsFreed() {
        return slabsFreed.get();
    }

    /**
     * Bytes of every slab freed since the pool was made.
     *
     * @return the bytes, never decreasing
     */
    public long freedBytes() {
        return freedBytes.get();
    }

    /**
     * Thread magazines ended since the pool was made, because their thread exited, detached or died.
     *
     * @return the count, never decreasing
     */
    public long magazinesEnded() {
        return magazinesEnded.get();
    }

    /**
     * Slab bytes of size-classed chunks that ended magazines still hold.
     *
     * @return the bytes, 0 once every buffer allocated by ended threads is released
     */
    public long endedThreadsBytes() {
        return endedThreadsBytes.get();
    }

    /**
     * Chunks of {@code sizeClass} in magazines now.
     *
     * @param sizeClass the size class, {@code 0 <= sizeClass < SizeClasses.COUNT}
     * @return the number of chunks, 0 or more
     */
    public long activeChunks(int sizeClass) {
        return chunksPerClass.get(sizeClass);
    }

    /**
     * Chunks of {@code sizeClass} put to use since the pool started.
     *
     * @param sizeClass the size class, {@code 0 <= sizeClass < SizeClasses.COUNT}
     * @return the count, never decreasing
     */
    public long chunkActivations(int sizeClass) {
        return activationsPerClass.get(sizeClass);
    }
}
