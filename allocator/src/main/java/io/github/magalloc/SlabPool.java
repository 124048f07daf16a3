package io.github.magalloc;

import org.jctools.queues.atomic.MpmcAtomicArrayQueue;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The reuse queue for empty slabs, bounded by a byte budget rather than by the number of cores.
 *
 * <p>Slab sizes are powers of two; each size has its own lock-free queue, and all of them share one budget. A slab
 * given back while the pool already holds {@code budget} bytes is freed at once, so the memory the pool keeps is
 * never more than the budget whatever the core count. All of this is cold path: it runs when a chunk is created
 * or retired, never per buffer.
 */
final class SlabPool {
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(SizeClasses.MIN_CHUNK_SIZE);

    private final long budget;
    private final int maxSlabSize;
    private final MpmcAtomicArrayQueue<Slab>[] queues;
    private final AtomicLong pooledBytes = new AtomicLong();

    @SuppressWarnings("unchecked")
    SlabPool(long budgetBytes, int maxSlabSize) {
        this.budget = budgetBytes;
        this.maxSlabSize = maxSlabSize;
        int buckets = Integer.numberOfTrailingZeros(maxSlabSize) - MIN_SHIFT + 1;
        queues = new MpmcAtomicArrayQueue[buckets];
        for (int i = 0; i < buckets; i++) {
            long slabSize = (long) SizeClasses.MIN_CHUNK_SIZE << i;
            int capacity = (int) Math.max(2, Math.min(1 << 16, budgetBytes / slabSize + 1));
            queues[i] = new MpmcAtomicArrayQueue<>(capacity);
        }
    }

    static boolean isPoolableSize(int size, int maxSlabSize) {
        return Integer.bitCount(size) == 1 && size >= SizeClasses.MIN_CHUNK_SIZE && size <= maxSlabSize;
    }

    /** An empty slab of exactly {@code size} bytes, or null. */
    Slab poll(int size) {
        Slab slab = queues[bucketOf(size)].poll();
        if (slab != null) {
            pooledBytes.addAndGet(-slab.size);
        }
        return slab;
    }

    /** An empty slab of {@code size} bytes or more (the smallest available), or null. */
    Slab pollAtLeast(int size) {
        for (int i = bucketOf(size); i < queues.length; i++) {
            Slab slab = queues[i].poll();
            if (slab != null) {
                pooledBytes.addAndGet(-slab.size);
                return slab;
            }
        }
        return null;
    }

    /** Keeps the slab if the budget allows; returns false if the caller must free it. */
    boolean offer(Slab slab) {
        if (pooledBytes.addAndGet(slab.size) > budget) {
            pooledBytes.addAndGet(-slab.size);
            return false;
        }
        if (!queues[bucketOf(slab.size)].offer(slab)) {
            pooledBytes.addAndGet(-slab.size);
            return false;
        }
        return true;
    }

    /** Removes one pooled slab of any size (largest first), or returns null when the pool is empty. */
    Slab pollAny() {
        for (int i = queues.length - 1; i >= 0; i--) {
            Slab slab = queues[i].poll();
            if (slab != null) {
                pooledBytes.addAndGet(-slab.size);
                return slab;
            }
        }
        return null;
    }

    long pooledBytes() {
        return pooledBytes.get();
    }

    int maxSlabSize() {
        return maxSlabSize;
    }

    long budget() {
        return budget;
    }

    private int bucketOf(int size) {
        return Integer.numberOfTrailingZeros(size) - MIN_SHIFT;
    }
}
