package io.github.magalloc;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** Counters for one memory pool. Updated on cold paths only (slabs and chunks come and go), never per buffer. */
final class PoolMetrics {
    /** Bytes of every slab alive: in chunks, in the reuse pool, and huge buffers. */
    final AtomicLong reservedBytes = new AtomicLong();
    final AtomicLong hugeBytes = new AtomicLong();
    /** Large chunks whose slab has not gone back yet (held by magazines, or detached with live buffers). */
    final AtomicLong largeChunks = new AtomicLong();
    final AtomicLong slabsAllocated = new AtomicLong();
    final AtomicLong slabsFreed = new AtomicLong();
    /** Thread magazines that became shared because their thread exited, detached or died. */
    final AtomicLong magazinesAbandoned = new AtomicLong();
    /**
     * Slab bytes of size-classed chunks held by abandoned magazines. Invariant: each such chunk is retired when its
     * last buffer is released, so once every buffer allocated by ended threads is released this is 0.
     */
    final AtomicLong abandonedChunkBytes = new AtomicLong();
    private final AtomicLongArray chunksPerClass = new AtomicLongArray(SizeClasses.COUNT);
    private final AtomicLongArray activationsPerClass = new AtomicLongArray(SizeClasses.COUNT);

    /** A chunk was put to use by a magazine: new, or taken whole from the reuse pool. */
    void chunkActivated(int sizeClass) {
        chunksPerClass.incrementAndGet(sizeClass);
        activationsPerClass.incrementAndGet(sizeClass);
    }

    void chunkRetired(int sizeClass) {
        chunksPerClass.decrementAndGet(sizeClass);
    }

    long activeChunks(int sizeClass) {
        return chunksPerClass.get(sizeClass);
    }

    long chunkActivations(int sizeClass) {
        return activationsPerClass.get(sizeClass);
    }
}
