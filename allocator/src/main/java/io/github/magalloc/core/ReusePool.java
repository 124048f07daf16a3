package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The reuse queue for empty memory, bounded by a byte budget rather than by the number of cores.
 *
 * <p>It holds two kinds of empty memory, all counted against one budget:
 * <ul>
 *   <li>empty size-classed chunks, one lock-free queue per size class: a chunk taken back for the same class is
 *       used as it is, free list and remote queue included, so chunk turnover creates no garbage;</li>
 *   <li>bare slabs, one queue per power-of-two size, for large chunks.</li>
 * </ul>
 * A size-classed chunk or slab given back while the pool already holds {@code ceiling} bytes is freed at once, a
 * large chunk's slab already at {@code budget}; what the pool holds above {@code budget} goes back a delay later
 * ({@link ReuseExcess}). So the memory the pool keeps never exceeds the ceiling, and the budget once the traffic
 * that filled it is gone, whatever the core count. Only the size classes may go above the budget: their chunks
 * empty and fill in waves with many requests in flight, while a large chunk's own spares already absorb a large
 * buffer's comings and goings (protocol 6 (large chunks)). All of this is cold path: it runs when a chunk is retired
 * or a new one is needed, never per buffer.
 */
final class ReusePool {
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(SizeClasses.MIN_CHUNK_SIZE);

    private final long budget;
    /** {@code budget <= ceiling}; after every offer, {@code pooledBytes <= ceiling}. */
    private final long ceiling;
    private final int maxSlabSize;
    /**
     * Per size class, made at the first offer: a queue holds up to the ceiling's worth of entries, so an allocator
     * that made every one up front would carry hundreds of KiB of empty queues for the classes it never retires a
     * chunk of.
     */
    private final AtomicReferenceArray<MpmcAtomicArrayQueue<SizeClassChunk>> chunks =
        new AtomicReferenceArray<>(SizeClasses.COUNT);
    /** Per power-of-two slab size from {@link SizeClasses#MIN_CHUNK_SIZE}, made at the first offer. */
    private final AtomicReferenceArray<MpmcAtomicArrayQueue<Slab>> slabs;
    private final AtomicLong pooledBytes = new AtomicLong();

    ReusePool(long budgetBytes, long ceilingBytes, int maxSlabSize) {
        if (ceilingBytes < budgetBytes) {
            throw new IllegalArgumentException("ceiling " + ceilingBytes + " below budget " + budgetBytes);
        }
        this.budget = budgetBytes;
        this.ceiling = ceilingBytes;
        this.maxSlabSize = maxSlabSize;
        this.slabs = new AtomicReferenceArray<>(Integer.numberOfTrailingZeros(maxSlabSize) - MIN_SHIFT + 1);
    }

    /** The queue of {@code index}, made by the first caller that needs one (a lost race takes the winner's). */
    private static <T> MpmcAtomicArrayQueue<T> queueOf(AtomicReferenceArray<MpmcAtomicArrayQueue<T>> queues,
                                                        int index, long ceilingBytes, long entryBytes) {
        MpmcAtomicArrayQueue<T> queue = queues.get(index);
        if (queue == null) {
            queues.compareAndSet(index, null, new MpmcAtomicArrayQueue<>(capacityFor(ceilingBytes, entryBytes)));
            queue = queues.get(index);
        }
        return queue;
    }

    private static int capacityFor(long ceilingBytes, long entryBytes) {
        return (int) Math.max(2, Math.min(1 << 16, ceilingBytes / entryBytes + 1));
    }

    boolean isPoolableSlabSize(int size) {
        return Integer.bitCount(size) == 1 && size >= SizeClasses.MIN_CHUNK_SIZE && size <= maxSlabSize;
    }

    /** An empty chunk of the class, ready to be owned by a magazine, or null. */
    SizeClassChunk pollChunk(int sizeClass) {
        MpmcAtomicArrayQueue<SizeClassChunk> queue = chunks.get(sizeClass);
        SizeClassChunk chunk = queue == null ? null : queue.poll();
        if (chunk != null) {
            pooledBytes.addAndGet(-chunk.slab.size);
        }
        return chunk;
    }

    /** Keeps an empty chunk if the ceiling allows; returns false if the caller must free its slab. */
    boolean offerChunk(SizeClassChunk chunk) {
        int sizeClass = chunk.sizeClass;
        return offer(queueOf(chunks, sizeClass, ceiling, SizeClasses.firstChunkSizeOf(sizeClass)), chunk,
            chunk.slab.size, ceiling);
    }

    /**
     * An empty slab that can back a chunk of {@code sizeClass}, or null: a bare slab of one of the class's chunk
     * sizes, else the slab of a pooled empty chunk of another class whose chunk sizes all fit this class (its chunk
     * object is dropped and the slab re-cut).
     */
    Slab pollSlabFor(int sizeClass) {
        int smallest = SizeClasses.firstChunkSizeOf(sizeClass);
        int largest = SizeClasses.chunkSizeOf(sizeClass);
        for (int size = largest; size >= smallest; size >>= 1) {
            Slab slab = pollBareSlab(bucketOf(size));
            if (slab != null) {
                return slab;
            }
        }
        for (int other = 0; other < chunks.length(); other++) {
            if (other != sizeClass && SizeClasses.firstChunkSizeOf(other) >= smallest
                && SizeClasses.chunkSizeOf(other) <= largest) {
                SizeClassChunk chunk = pollChunk(other);
                if (chunk != null) {
                    return chunk.slab;
                }
            }
        }
        return null;
    }

    /** An empty bare slab of {@code size} bytes or more (the smallest available), or null; for large chunks. */
    Slab pollSlabAtLeast(int size) {
        for (int i = bucketOf(size); i < slabs.length(); i++) {
            Slab slab = pollBareSlab(i);
            if (slab != null) {
                return slab;
            }
        }
        return null;
    }

    /** Keeps an empty size-class slab if the ceiling allows; returns false if the caller must free it. */
    boolean offerSlab(Slab slab) {
        return offerBareSlab(slab, ceiling);
    }

    /** Keeps an empty large chunk's slab if the budget allows; returns false if the caller must free it. */
    boolean offerLargeSlab(Slab slab) {
        return offerBareSlab(slab, budget);
    }

    private boolean offerBareSlab(Slab slab, long limit) {
        return isPoolableSlabSize(slab.size)
            && offer(queueOf(slabs, bucketOf(slab.size), ceiling, slab.size), slab, slab.size, limit);
    }

    /** Removes one pooled slab of any kind (trim), or returns null when the pool is empty. */
    Slab pollAny() {
        for (int i = slabs.length() - 1; i >= 0; i--) {
            Slab slab = pollBareSlab(i);
            if (slab != null) {
                return slab;
            }
        }
        for (int i = 0; i < chunks.length(); i++) {
            SizeClassChunk chunk = pollChunk(i);
            if (chunk != null) {
                return chunk.slab;
            }
        }
        return null;
    }

    long pooledBytes() {
        return pooledBytes.get();
    }

    long budget() {
        return budget;
    }

    long ceiling() {
        return ceiling;
    }

    private <T> boolean offer(MpmcAtomicArrayQueue<T> queue, T item, int bytes, long limit) {
        if (pooledBytes.addAndGet(bytes) > limit) {
            pooledBytes.addAndGet(-bytes);
            return false;
        }
        if (!queue.offer(item)) {
            pooledBytes.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    private Slab pollBareSlab(int bucket) {
        MpmcAtomicArrayQueue<Slab> queue = slabs.get(bucket);
        Slab slab = queue == null ? null : queue.poll();
        if (slab != null) {
            pooledBytes.addAndGet(-slab.size);
        }
        return slab;
    }

    private int bucketOf(int size) {
        return Integer.numberOfTrailingZeros(size) - MIN_SHIFT;
    }
}
