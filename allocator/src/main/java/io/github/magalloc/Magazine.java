package io.github.magalloc;

import org.jctools.queues.atomic.MpscAtomicArrayQueue;

import java.lang.ref.WeakReference;

/**
 * A set of chunks, per size class one current chunk plus partial and full ones, used by one thread at a time: either the
 * thread it belongs to (a thread-local magazine) or whoever holds the lock of a shared stripe. Nothing in here is
 * atomic; {@link MemoryPool} decides which magazine a thread may use.
 *
 * <p>The fast path is {@link #allocate}: pop a segment from the current chunk's local list and take a recycled
 * buffer object. Everything else (collecting remote frees, switching chunks, new slabs, large requests) is in
 * separate cold methods.
 *
 * <p>Layout: padding in front ({@link CacheLinePadding}), then what releasing threads read
 * ({@link MagazineShared}), more padding, then the owner's fields: the counters written on every allocation must
 * not share a cache line with what other threads read on every release, nor with neighbouring objects (the
 * stripes array, another magazine).
 */
final class Magazine extends MagazinePad {
    static final int SPARE_BUFFERS = 128;

    final MemoryPool pool;

    private final SizeClassChunk[] current = new SizeClassChunk[SizeClasses.COUNT];
    /** Non-current chunks with free segments (as far as the owner knows). */
    private final ChunkList[] partial = new ChunkList[SizeClasses.COUNT];
    /** Non-current chunks that had no free segment when last looked at; foreign releases may have refilled them. */
    private final ChunkList[] full = new ChunkList[SizeClasses.COUNT];
    private final MagByteBuf[] spareBuffers = new MagByteBuf[SPARE_BUFFERS];
    private int spareCount;

    private LargeChunk large;
    /** Running average of large request sizes: sizes the next large chunk. */
    private int averageLargeSize;

    /** Set by {@link MemoryPool#trim()} from any thread; the owner acts on it at its next refill. */
    volatile boolean trimRequested;

    /** A thread-local magazine for {@code owner}, or a shared one (with its lock) when {@code owner} is null. */
    Magazine(MemoryPool pool, Thread owner) {
        this(pool, owner, true);
    }

    private Magazine(MemoryPool pool, Thread owner, boolean allocates) {
        super(owner, allocates);
        this.pool = pool;
    }

    /** A shared magazine: used by whichever thread holds its {@link #lock}. */
    static Magazine shared(MemoryPool pool) {
        return new Magazine(pool, null, true);
    }

    /** The pool's stand-in owner of huge buffers' objects: never allocates, takes no returns, has no lock. */
    static Magazine unowned(MemoryPool pool) {
        return new Magazine(pool, null, false);
    }

    /**
     * Shared magazines only: takes the lock if it is free and makes the calling thread the owner until
     * {@link #unlockAsOwner()}, so that releasing a buffer of this magazine is an owner release (local free list,
     * spare stack) instead of two queue offers. A thread reading {@link #ownerThreadId} meanwhile sees
     * {@link #NO_OWNER} or this thread's id, never its own, and stays on the remote path. Returns false at once
     * when the lock is busy or this is a thread-local magazine.
     */
    boolean tryLockAsOwner(long threadId) {
        StripeLock lock = this.lock;
        if (lock == null || !lock.tryLock()) {
            return false;
        }
        ownerThreadId = threadId;
        return true;
    }

    void unlockAsOwner() {
        ownerThreadId = NO_OWNER;
        lock.unlock();
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

    /** Owner release of a segment. Two counts need work: the first free segment and the last one. */
    void releaseLocal(SizeClassChunk chunk, int segment) {
        int free = chunk.pushLocal(segment);
        if (free == 1 || free == chunk.segmentCount) {
            onFreeCountEdge(chunk, free);
        }
    }

    /** Cold: a full chunk got a free segment (now partial), or a chunk became entirely free (retire it). */
    private void onFreeCountEdge(SizeClassChunk chunk, int free) {
        if (chunk.current) {
            return;
        }
        if (free == chunk.segmentCount) {
            chunk.list.remove(chunk);
            retire(chunk);
        } else if (chunk.list == full[chunk.sizeClass]) {
            chunk.list.remove(chunk);
            partialOf(chunk.sizeClass).add(chunk);
        }
    }

    MagByteBuf takeBufferObject() {
        int n = spareCount;
        if (n == 0 && (n = collectReturnedBuffers()) == 0) {
            return pool.newBufferObject(this);
        }
        spareCount = --n;
        MagByteBuf buf = spareBuffers[n];
        spareBuffers[n] = null;
        return buf;
    }

    /** Cold: refills the spare stack from objects released on other threads; returns the new spare count. */
    private int collectReturnedBuffers() {
        MpscAtomicArrayQueue<MagByteBuf> queue = returnedBuffers;
        int n = 0;
        MagByteBuf buf;
        while (n < SPARE_BUFFERS && (buf = queue.relaxedPoll()) != null) {
            spareBuffers[n++] = buf;
        }
        spareCount = n;
        return n;
    }

    /**
     * Any thread but the owner: hands back a released buffer object of this magazine. Returns false when this
     * magazine takes none (closed, or the stand-in owner of huge buffers) or its queue is full.
     */
    boolean returnBufferObject(MagByteBuf buf) {
        return acceptsReturnedBuffers && returnedBuffers.offer(buf);
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

    /**
     * The current chunk of the class is exhausted (or missing): collect its foreign releases, else switch to the
     * partial chunk that has waited longest (it has gathered the most free segments), else look through the full
     * chunks for foreign releases, else take a slab.
     */
    private SizeClassChunk refill(int sizeClass) {
        if (trimRequested) {
            trimOwned();
        }
        SizeClassChunk exhausted = current[sizeClass];
        if (exhausted != null && exhausted.drainRemote() > 0) {
            return exhausted;
        }
        SizeClassChunk next = partialOf(sizeClass).pollFirst();
        if (next == null) {
            next = collectForeignReleases(sizeClass);
        }
        if (next == null) {
            next = newChunk(sizeClass); // may throw OutOfMemoryError: nothing has changed yet
        }
        if (exhausted != null) {
            exhausted.current = false;
            fullOf(sizeClass).add(exhausted);
        }
        next.current = true;
        current[sizeClass] = next;
        return next;
    }

    private SizeClassChunk newChunk(int sizeClass) {
        int slabSize = chunkCount(sizeClass) == 0
            ? SizeClasses.firstChunkSizeOf(sizeClass) : SizeClasses.chunkSizeOf(sizeClass);
        return pool.takeChunk(this, sizeClass, slabSize);
    }

    /**
     * Drains every full chunk of the class: those that received foreign releases become partial, entirely free
     * ones beyond the first are retired. Runs only when no partial chunk is left, so its cost is paid once per
     * batch of foreign releases or once per new slab. Returns a partial chunk or null.
     */
    private SizeClassChunk collectForeignReleases(int sizeClass) {
        ChunkList fullList = fullOf(sizeClass);
        ChunkList partialList = partialOf(sizeClass);
        SizeClassChunk empty = null;
        for (SizeClassChunk chunk = fullList.first(), following; chunk != null; chunk = following) {
            following = chunk.next;
            if (chunk.drainRemote() == 0) {
                continue;
            }
            fullList.remove(chunk);
            if (chunk.isEntirelyFree()) {
                if (empty == null) {
                    empty = chunk;
                } else {
                    retire(chunk);
                }
            } else {
                partialList.add(chunk);
            }
        }
        SizeClassChunk next = partialList.pollFirst();
        if (next == null) {
            return empty;
        }
        if (empty != null) {
            partialList.add(empty);
        }
        return next;
    }

    private ChunkList partialOf(int sizeClass) {
        ChunkList list = partial[sizeClass];
        if (list == null) {
            list = partial[sizeClass] = new ChunkList();
        }
        return list;
    }

    private ChunkList fullOf(int sizeClass) {
        ChunkList list = full[sizeClass];
        if (list == null) {
            list = full[sizeClass] = new ChunkList();
        }
        return list;
    }

    /** Gives an entirely free, non-current chunk back to the pool (the reuse pool keeps it whole). */
    void retire(SizeClassChunk chunk) {
        assert chunk.isEntirelyFree() && !chunk.current;
        pool.retireChunk(chunk);
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
        LargeChunk chunk = new LargeChunk(pool.takeLargeSlab(pool.largeChunkSizeFor(size, averageLargeSize)), pool);
        large = chunk;
        return chunk;
    }

    /**
     * Owner only: gives every entirely free chunk, current ones included, back to the reuse pool, and drops the
     * large chunk when no buffer uses it.
     */
    void trimOwned() {
        trimRequested = false;
        if (large != null && large.hasNoBuffers()) {
            large.releaseReference();
            large = null;
        }
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
            retireEntirelyFree(partial[sizeClass]);
            retireEntirelyFree(full[sizeClass]);
        }
    }

    private void retireEntirelyFree(ChunkList list) {
        if (list == null) {
            return;
        }
        for (SizeClassChunk chunk = list.first(), following; chunk != null; chunk = following) {
            following = chunk.next;
            chunk.drainRemote();
            if (chunk.isEntirelyFree()) {
                list.remove(chunk);
                retire(chunk);
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
        acceptsReturnedBuffers = false;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            SizeClassChunk chunk = current[sizeClass];
            if (chunk != null) {
                current[sizeClass] = null;
                chunk.current = false;
                heir.adopt(chunk);
            }
            handOverAll(partial[sizeClass], heir);
            handOverAll(full[sizeClass], heir);
        }
        if (large != null) {
            large.releaseReference();
            large = null;
        }
        while (spareCount > 0) {
            spareBuffers[--spareCount] = null;
        }
    }

    private static void handOverAll(ChunkList list, Magazine heir) {
        if (list == null) {
            return;
        }
        SizeClassChunk chunk;
        while ((chunk = list.pollFirst()) != null) {
            heir.adopt(chunk);
        }
    }

    /** Takes over a chunk from a closed magazine. Caller holds this (shared) magazine's lock. */
    private void adopt(SizeClassChunk chunk) {
        chunk.magazine = this;
        chunk.drainRemote();
        if (chunk.isEntirelyFree()) {
            retire(chunk);
        } else if (chunk.freeCount > 0) {
            partialOf(chunk.sizeClass).add(chunk);
        } else {
            fullOf(chunk.sizeClass).add(chunk);
        }
    }

    /** Number of chunks this magazine holds for {@code sizeClass}; owner only. */
    int chunkCount(int sizeClass) {
        return (current[sizeClass] == null ? 0 : 1) + sizeOf(partial[sizeClass]) + sizeOf(full[sizeClass]);
    }

    private static int sizeOf(ChunkList list) {
        return list == null ? 0 : list.size();
    }
}

/** What threads other than the owner read when they release a buffer of the magazine. */
abstract class MagazineShared extends CacheLinePadding {
    /** {@link #ownerThreadId} of shared and closed magazines: matches no thread, so releases go remote. */
    static final long NO_OWNER = -1;

    /**
     * Id of the owning thread. A thread-local magazine's is written by the owner (or, after it died, by the reaper)
     * only when the magazine is closed; a shared magazine's is {@link #NO_OWNER} except while a thread holds the
     * lock to release a buffer ({@link Magazine#tryLockAsOwner}). Read racily by releasing threads, for whom a
     * stale value is harmless: it is never their own id unless they are the owner (see {@link SizeClassChunk}).
     */
    long ownerThreadId;
    /** The owning thread, weakly, so a dead thread can be noticed without being kept reachable. */
    final WeakReference<Thread> ownerThread;
    /** A shared magazine's lock: whoever holds it is the owner. Null for thread-local magazines. */
    final StripeLock lock;
    /**
     * Buffer objects of this magazine released on other threads. The owner (the thread, or the lock holder of a
     * shared magazine: the lock orders successive consumers) drains them in batches when its spare stack runs dry,
     * so recycling across threads costs the owner no atomic per buffer (one CAS on the releasing side, as any
     * hand-off needs). Null for the pool's stand-in owner of huge buffers, which never allocates.
     */
    final MpscAtomicArrayQueue<MagByteBuf> returnedBuffers;
    /** Cleared when the magazine is closed; a racing release may still return one object, left to the GC. */
    boolean acceptsReturnedBuffers;

    MagazineShared(Thread owner, boolean allocates) {
        this.ownerThreadId = owner == null ? NO_OWNER : owner.getId();
        this.ownerThread = owner == null ? null : new WeakReference<>(owner);
        this.lock = owner == null && allocates ? new StripeLock() : null;
        this.returnedBuffers = allocates ? new MpscAtomicArrayQueue<>(Magazine.SPARE_BUFFERS * 8) : null;
        this.acceptsReturnedBuffers = allocates;
    }
}

/** 128 bytes between the shared fields and the owner's (see {@link Magazine}); never used. */
abstract class MagazinePad extends MagazineShared {
    byte q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015;
    byte q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111, q112, q113, q114, q115;
    byte q200, q201, q202, q203, q204, q205, q206, q207, q208, q209, q210, q211, q212, q213, q214, q215;
    byte q300, q301, q302, q303, q304, q305, q306, q307, q308, q309, q310, q311, q312, q313, q314, q315;
    byte q400, q401, q402, q403, q404, q405, q406, q407, q408, q409, q410, q411, q412, q413, q414, q415;
    byte q500, q501, q502, q503, q504, q505, q506, q507, q508, q509, q510, q511, q512, q513, q514, q515;
    byte q600, q601, q602, q603, q604, q605, q606, q607, q608, q609, q610, q611, q612, q613, q614, q615;
    byte q700, q701, q702, q703, q704, q705, q706, q707, q708, q709, q710, q711, q712, q713, q714, q715;

    MagazinePad(Thread owner, boolean allocates) {
        super(owner, allocates);
    }
}
