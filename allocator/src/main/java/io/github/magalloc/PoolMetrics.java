package io.github.magalloc;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** Counters for one memory pool. Updated on cold paths only (slabs and chunks come and go), never per buffer. */
final class PoolMetrics {
    /** Bytes of every slab alive: in chunks, in the reuse pool, and huge buffers. */
    final AtomicLong reservedBytes = new AtomicLong();
    final AtomicLong hugeBytes = new AtomicLong();
    final AtomicLong largeChunks = new AtomicLong();
    final AtomicLong slabsAllocated = new AtomicLong();
    final AtomicLong slabsFreed = new AtomicLong();
    private final AtomicLongArray chunksPerClass = new AtomicLongArray(SizeClasses.COUNT);
    private final AtomicLongArray chunksCreatedPerClass = new AtomicLongArray(SizeClasses.COUNT);

    void chunkCreated(int sizeClass, int bytes) {
        chunksPerClass.incrementAndGet(sizeClass);
        chunksCreatedPerClass.incrementAndGet(sizeClass);
    }

    void chunkRetired(int sizeClass, int bytes) {
        chunksPerClass.decrementAndGet(sizeClass);
    }

    long activeChunks(int sizeClass) {
        return chunksPerClass.get(sizeClass);
    }

    long chunksCreated(int sizeClass) {
        return chunksCreatedPerClass.get(sizeClass);
    }
}
