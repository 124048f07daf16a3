package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
import io.github.magalloc.buffer.SlabStack;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The reuse pool for empty memory, bounded by a byte budget rather than by the number of cores.
 *
 * <p>It holds two kinds of empty memory, all counted against one budget:
 * <ul>
 *   <li>empty size-classed chunks, a stack per size class: a chunk taken back for the same class is used as it is,
 *       free list and remote queue included, so chunk turnover creates no garbage;</li>
 *   <li>bare slabs, a stack per power-of-two size, for large chunks.</li>
 * </ul>
 * The stacks are linked through the chunks and slabs themselves ({@link SizeClassChunk#nextPooled},
 * {@link SlabStack}), under this pool's lock: an offer or a take makes no garbage, the pool costs a few hundred bytes
 * however much it may hold, and the last memory given back, still in the caches, is the first taken. A chunk or slab is
 * taken or given back when a chunk is retired or a new one is needed, never per buffer, so the lock is rarely
 * contended.
 *
 * <p>A size-classed chunk or slab given back while the pool already holds {@code ceiling} bytes is freed at once, a
 * large chunk's slab at {@code budget}, or at {@code largeCeiling} while large buffers swing ({@link LargeSlabMisses});
 * what the pool holds above {@code budget} goes back a delay later ({@link ReuseExcess}). So the memory the pool keeps
 * returns to the budget once the traffic that filled it is gone, whatever the core count. A large chunk's slab may
 * go further above the budget than the size classes' ceiling: it comes from a chunk a magazine had in use, so what it
 * adds is memory in use within the last delay, and a swing of large buffers (a queue of 1 MiB buffers filling and
 * draining) takes its slabs back from the pool instead of from the system (protocol 3a (the reuse pool's excess)).
 */
final class ReusePool {
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(SizeClasses.MIN_CHUNK_SIZE);

    private final long budget;
    /** {@code budget <= ceiling}; after every size-classed offer, {@code pooledBytes <= ceiling}. */
    private final long ceiling;
    /**
     * {@code ceiling <= largeCeiling}; after every large chunk's offer, {@code pooledBytes <= largeCeiling} while
     * large buffers swing, else {@code pooledBytes <= budget}.
     */
    private final long largeCeiling;
    /** Guarded by this pool's lock. */
    private final LargeSlabMisses largeMisses;
    private final int maxSlabSize;
    /** Per size class, the top of its stack of empty chunks, or null. Guarded by this pool's lock. */
    private final SizeClassChunk[] chunks = new SizeClassChunk[SizeClasses.COUNT];
    /** Per power-of-two slab size from {@link SizeClasses#MIN_CHUNK_SIZE}. Guarded by this pool's lock. */
    private final SlabStack[] slabs;
    /**
     * Bytes pooled: updated under the lock by an atomic add, which the reuse pool's excess handshake needs as its
     * write (protocol 3a (the reuse pool's excess)), and read by anyone without it.
     */
    private final AtomicLong pooledBytes = new AtomicLong();

    ReusePool(long budgetBytes, long ceilingBytes, long largeCeilingBytes, LargeSlabMisses largeMisses,
              int maxSlabSize) {
        if (ceilingBytes < budgetBytes || largeCeilingBytes < ceilingBytes) {
            throw new IllegalArgumentException("expected budget <= ceiling <= large ceiling, got " + budgetBytes
                + ", " + ceilingBytes + ", " + largeCeilingBytes);
        }
        this.budget = budgetBytes;
        this.ceiling = ceilingBytes;
        this.largeCeiling = largeCeilingBytes;
        this.largeMisses = largeMisses;
        this.maxSlabSize = maxSlabSize;
        this.slabs = new SlabStack[Integer.numberOfTrailingZeros(maxSlabSize) - MIN_SHIFT + 1];
        for (int i = 0; i < slabs.length; i++) {
            slabs[i] = new SlabStack();
        }
    }

    boolean isPoolableSlabSize(int size) {
        return Integer.bitCount(size) == 1 && size >= SizeClasses.MIN_CHUNK_SIZE && size <= maxSlabSize;
    }

    /** An empty chunk of the class, ready to be owned by a magazine, or null. */
    synchronized SizeClassChunk pollChunk(int sizeClass) {
        SizeClassChunk chunk = chunks[sizeClass];
        if (chunk != null) {
            chunks[sizeClass] = chunk.nextPooled;
            chunk.nextPooled = null;
            pooledBytes.addAndGet(-chunk.slab.size);
        }
        return chunk;
    }

    /** Keeps an empty chunk if the ceiling allows; returns false if the caller must free its slab. */
    synchronized boolean offerChunk(SizeClassChunk chunk) {
        if (!reserve(chunk.slab.size, ceiling)) {
            return false;
        }
        chunk.nextPooled = chunks[chunk.sizeClass];
        chunks[chunk.sizeClass] = chunk;
        return true;
    }

    /**
     * An empty slab that can back a chunk of {@code sizeClass}, or null: a bare slab of one of the class's chunk
     * sizes, else the slab of a pooled empty chunk of another class whose chunk sizes all fit this class (its chunk
     * object is dropped and the slab re-cut).
     */
    synchronized Slab pollSlabFor(int sizeClass) {
        int smallest = SizeClasses.firstChunkSizeOf(sizeClass);
        int largest = SizeClasses.chunkSizeOf(sizeClass);
        for (int size = largest; size >= smallest; size >>= 1) {
            Slab slab = pollBareSlab(bucketOf(size));
            if (slab != null) {
                return slab;
            }
        }
        for (int other = 0; other < chunks.length; other++) {
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
    synchronized Slab pollSlabAtLeast(int size) {
        for (int i = bucketOf(size); i < slabs.length; i++) {
            Slab slab = pollBareSlab(i);
            if (slab != null) {
                return slab;
            }
        }
        largeMisses.count(System.nanoTime());
        return null;
    }

    /** Keeps an empty size-class slab if the ceiling allows; returns false if the caller must free it. */
    boolean offerSlab(Slab slab) {
        return offerBareSlab(slab, ceiling);
    }

    /**
     * Keeps an empty large chunk's slab within the budget, or within the large ceiling while large buffers swing;
     * returns false if the caller must free it.
     */
    synchronized boolean offerLargeSlab(Slab slab) {
        return offerBareSlab(slab, largeMisses.swinging(System.nanoTime()) ? largeCeiling : budget);
    }

    private synchronized boolean offerBareSlab(Slab slab, long limit) {
        if (!isPoolableSlabSize(slab.size) || !reserve(slab.size, limit)) {
            return false;
        }
        slabs[bucketOf(slab.size)].push(slab);
        return true;
    }

    /** Removes one pooled slab of any kind (trim), or returns null when the pool is empty. */
    synchronized Slab pollAny() {
        for (int i = slabs.length - 1; i >= 0; i--) {
            Slab slab = pollBareSlab(i);
            if (slab != null) {
                return slab;
            }
        }
        for (int i = 0; i < chunks.length; i++) {
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

    long largeCeiling() {
        return largeCeiling;
    }

    /** Lock held: adds {@code bytes} if the pool then holds no more than {@code limit}; returns whether it did. */
    private boolean reserve(int bytes, long limit) {
        if (pooledBytes.get() + bytes > limit) {
            return false;
        }
        pooledBytes.addAndGet(bytes);
        return true;
    }

    /** Lock held. */
    private Slab pollBareSlab(int bucket) {
        Slab slab = slabs[bucket].pop();
        if (slab != null) {
            pooledBytes.addAndGet(-slab.size);
        }
        return slab;
    }

    private int bucketOf(int size) {
        return Integer.numberOfTrailingZeros(size) - MIN_SHIFT;
    }
}
