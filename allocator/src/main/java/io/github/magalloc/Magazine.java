package io.github.magalloc;

import java.lang.ref.WeakReference;

/**
 * A set of chunks, one current chunk per size class plus the others, used by one thread at a time: either the
 * thread it belongs to (a thread-local magazine) or whoever holds the lock of a shared stripe. Nothing in here is
 * atomic; {@link MemoryPool} decides which magazine a thread may use.
 *
 * <p>The fast path is {@link #allocate}: pop a segment from the current chunk's local list and take a recycled
 * buffer object. Everything else (collecting remote frees, switching chunks, new slabs, large requests) is in
 * separate cold methods.
 */
final class Magazine {
    /** {@link #ownerThreadId} of shared and closed magazines: matches no thread, so releases go remote. */
    static final long NO_OWNER = -1;
    private static final int SPARE_BUFFERS = 128;

    final MemoryPool pool;
    /**
     * Id of the owning thread. Written by the owner (or, after it died, by the reaper) only when the magazine is
     * closed; read racily by releasing threads, for whom a stale value is harmless (see {@link SizeClassChunk}).
     */
    long ownerThreadId;
    /** The owning thread, weakly, so a dead thread can be noticed without being kept reachable. */
    final WeakReference<Thread> ownerThread;

    private final SizeClassChunk[] current = new SizeClassChunk[SizeClasses.COUNT];
    private final ChunkList[] others = new ChunkList[SizeClasses.COUNT];
    private final MagByteBuf[] spareBuffers = new MagByteBuf[SPARE_BUFFERS];
    private int spareCount;

    private LargeChunk large;
    /** Running average of large request sizes: sizes the next large chunk. */
    private int averageLargeSize;

    /** Set by {@link MemoryPool#trim()} from any thread; the owner acts on it at its next refill. */
    volatile boolean trimRequested;

    Magazine(MemoryPool pool, Thread owner) {
        this.pool = pool;
        this.ownerThreadId = owner == null ? NO_OWNER : owner.getId();
        this.ownerThread = owner == null ? null : new WeakReference<>(owner);
    }

    // ------------------------------------------------------------------ fast path

    /** A buffer of {@code sizeClass}; capacity and limits are set by the caller. */
    MagByteBuf allocate(int sizeClass, int initialCapacity, int maxCapacity) {
        SizeClassChunk chunk = current[sizeClass];
        int segment;
        if (chunk == null || (segment = chunk.allocateSegment()) < 0) {
            chunk = refill(sizeClass);
            segment = chunk.allocateSegment();
        }
        MagByteBuf buf = takeBufferObject();
        buf.init(chunk, segment, chunk.offsetOf(segment), chunk.segmentSize, initialCapacity, maxCapacity);
        return buf;
    }

    /** Owner release of a segment; the only non-trivial branch is retiring a chunk that became empty. */
    void releaseLocal(SizeClassChunk chunk, int segment) {
        if (chunk.pushLocal(segment) == chunk.segmentCount && !chunk.current) {
            retireFromList(chunk);
        }
    }

    MagByteBuf takeBufferObject() {
        int n = spareCount;
        if (n == 0) {
            return pool.newBufferObject(this);
        }
        spareCount = --n;
        MagByteBuf buf = spareBuffers[n];
        spareBuffers[n] = null;
        return buf;
    }

    /** Owner only: keeps a released buffer object for reuse; returns false when the spare stack is full. */
    boolean recycleLocal(MagByteBuf buf) {
        int n = spareCount;
        if (n == SPARE_BUFFERS) {
            return false;
        }
        spareBuffers[n] = buf;
        spareCount = n + 1;
        return true;
    }

    // ------------------------------------------------------------------ cold paths

    /** The current chunk of the class is exhausted (or missing): find or make one with a free segment. */
    private SizeClassChunk refill(int sizeClass) {
        if (trimRequested) {
            trimOwned();
        }
        SizeClassChunk chunk = current[sizeClass];
        if (chunk != null) {
            if (chunk.drainRemote() > 0) {
                return chunk;
            }
            // Full: park it with the others, where a later scan finds whatever other threads release to it.
            chunk.current = false;
            othersOf(sizeClass).add(chunk);
        }
        SizeClassChunk next = othersOf(sizeClass).takeChunkWithFreeSegments(this);
        if (next == null) {
            next = new SizeClassChunk(pool.takeSlab(SizeClasses.chunkSizeOf(sizeClass)), pool, this, sizeClass);
            pool.metrics.chunkCreated(sizeClass, next.slab.size);
        }
        next.current = true;
        current[sizeClass] = next;
        return next;
    }

    private ChunkList othersOf(int sizeClass) {
        ChunkList list = others[sizeClass];
        if (list == null) {
            list = others[sizeClass] = new ChunkList();
        }
        return list;
    }

    private void retireFromList(SizeClassChunk chunk) {
        others[chunk.sizeClass].remove(chunk);
        retire(chunk);
    }

    /** Gives an entirely free chunk's slab back to the pool. The chunk object is never used again. */
    void retire(SizeClassChunk chunk) {
        assert chunk.isEntirelyFree() && !chunk.current;
        pool.metrics.chunkRetired(chunk.sizeClass, chunk.slab.size);
        pool.releaseSlab(chunk.slab);
    }

    /** A buffer above the size classes and within the pooling limit, bumped out of a large chunk. */
    MagByteBuf allocateLarge(int initialCapacity, int maxCapacity) {
        int size = LargeChunk.alignedSize(initialCapacity);
        averageLargeSize += (size - averageLargeSize) >> 3;
        LargeChunk chunk = large;
        int offset = chunk == null ? -1 : chunk.allocate(size);
        if (offset < 0) {
            chunk = replaceLargeChunk(size);
            offset = chunk.allocate(size);
        }
        MagByteBuf buf = takeBufferObject();
        buf.init(chunk, -1, offset, size, initialCapacity, maxCapacity);
        return buf;
    }

    private LargeChunk replaceLargeChunk(int size) {
        LargeChunk old = large;
        large = null;
        if (old != null) {
            old.releaseReference();
        }
        LargeChunk chunk = new LargeChunk(pool.takeSlab(pool.largeChunkSizeFor(size, averageLargeSize)), pool);
        large = chunk;
        return chunk;
    }

    /** Owner only: gives every entirely free chunk, current ones included, back to the slab pool. */
    void trimOwned() {
        trimRequested = false;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            SizeClassChunk chunk = current[sizeClass];
            if (chunk != null) {
                chunk.drainRemote();
                if (chunk.isEntirelyFree()) {
                    current[sizeClass] = null;
                    chunk.current = false;
                    retire(chunk);
                }
            }
            ChunkList list = others[sizeClass];
            if (list != null) {
                list.retireEntirelyFree(this);
            }
        }
    }

    /**
     * Owner only, when the magazine will never be used again: every chunk moves to {@code heir} (a shared
     * magazine whose lock the caller holds), where releases keep arriving through the remote queues and scans
     * reclaim the chunks once empty. Nothing here references the dead thread.
     */
    void handOverTo(Magazine heir) {
        ownerThreadId = NO_OWNER;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            SizeClassChunk chunk = current[sizeClass];
            if (chunk != null) {
                current[sizeClass] = null;
                chunk.current = false;
                heir.adopt(chunk);
            }
            ChunkList list = others[sizeClass];
            if (list != null) {
                while (list.size() > 0) {
                    SizeClassChunk other = list.get(list.size() - 1);
                    list.remove(other);
                    heir.adopt(other);
                }
            }
        }
        if (large != null) {
            large.releaseReference();
            large = null;
        }
        while (spareCount > 0) {
            spareBuffers[--spareCount] = null;
        }
    }

    /** Takes over a chunk from a closed magazine. Caller holds this (shared) magazine's lock. */
    private void adopt(SizeClassChunk chunk) {
        chunk.magazine = this;
        chunk.drainRemote();
        if (chunk.isEntirelyFree()) {
            retire(chunk);
        } else {
            othersOf(chunk.sizeClass).add(chunk);
        }
    }

    /** Number of chunks this magazine holds for {@code sizeClass} (tests and metrics; owner only). */
    int chunkCount(int sizeClass) {
        ChunkList list = others[sizeClass];
        return (current[sizeClass] == null ? 0 : 1) + (list == null ? 0 : list.size());
    }
}
