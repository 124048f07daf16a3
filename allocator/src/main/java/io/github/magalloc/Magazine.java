package io.github.magalloc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Comparator;

/**
 * A set of chunks, per size class one current chunk plus partial and full ones, and the owner of their free lists.
 * A magazine is owned in one of two ways ({@link MagazineShared#ownerThreadId}):
 * <ul>
 *   <li><b>by a thread</b>: an event loop's (or opted-in thread's) own magazine; only that thread touches the lists,
 *       with no atomics at all;</li>
 *   <li><b>shared</b>: whoever holds {@link #lock} owns it. The striped magazines of plain threads are shared from
 *       birth; a thread's magazine becomes shared when the thread exits, detaches or dies ({@link #abandon}), so its
 *       chunks go back as their buffers are released, on whichever thread releases them.</li>
 * </ul>
 * Nothing else changes ownership, and only ever thread -> shared.
 *
 * <p>The fast path is {@link #allocate}: pop a segment from the current chunk's local list. Everything else
 * (collecting remote frees, switching chunks, new slabs, large requests, sweeps) is in cold methods.
 *
 * <p>Layout: padding in front ({@link CacheLinePadding}), then what releasing threads read ({@link MagazineShared}),
 * more padding, then the owner's fields: the counters written on every allocation must not share a cache line with
 * what other threads read on every release, nor with neighbouring objects (the stripes array, another magazine).
 */
final class Magazine extends MagazinePad {
    final MemoryPool pool;
    /**
     * The buffer objects of the owning thread for its large and huge buffers (its size-classed buffers use their
     * segments' own objects); null for a magazine shared from birth, whose callers bring the cache of their own
     * thread.
     */
    final BufferObjectCache objects;

    private final SizeClassChunk[] current = new SizeClassChunk[SizeClasses.COUNT];
    /** Non-current chunks with free segments (as far as the owner knows). */
    private final ChunkList[] partial = new ChunkList[SizeClasses.COUNT];
    /** Non-current chunks that had no free segment when last looked at; foreign releases may have refilled them. */
    private final ChunkList[] full = new ChunkList[SizeClasses.COUNT];

    /**
     * Large chunks in the order they were made; owner only. Allocation takes the first run that fits in the first
     * chunk that has one, so the older chunks fill up and the newer ones are the first to empty and go back.
     */
    private final ArrayList<LargeChunk> largeChunks = new ArrayList<>(4);
    /** Scratch list of {@link #releaseSpareLargeChunks}, kept so that it makes no garbage. */
    private final ArrayList<LargeChunk> unusedLargeChunks = new ArrayList<>(4);
    /** Spare chunks are looked at biggest first: a spare serves every request up to its size. */
    private static final Comparator<LargeChunk> BIGGEST_FIRST = (a, b) -> Integer.compare(b.slab.size, a.slab.size);
    /** Running average of large request sizes (whole pages): sizes the next large chunk. */
    private int averageLargeSize;

    /** Set by {@link MemoryPool#trim()} from any thread; the owner acts on it at its next refill. */
    volatile boolean trimRequested;

    /**
     * Shared magazines, lock holder only: the object cache of the plain thread that last allocated here. Plain
     * threads mostly come back to the same stripe, and finding their cache through the JDK {@code ThreadLocal}
     * cost a quarter of a plain allocate+release (a hash probe and a weak-reference check). Used only when its
     * {@link BufferObjectCache#ownerThreadId} is the caller's: thread ids are never reused, so it is then exactly the
     * cache the {@code ThreadLocal} would return. Dropped by {@link MemoryPool#trim()}, so a dead thread's cache
     * (spare objects without memory) stays reachable from at most each stripe, and only until the next trim or
     * the next plain thread on that stripe.
     */
    BufferObjectCache lastPlainThreadObjects;

    private Magazine(MemoryPool pool, Thread owner) {
        super(owner);
        this.pool = pool;
        this.objects = owner == null ? null : new BufferObjectCache(pool, owner.getId());
    }

    /** A magazine owned by {@code owner} (the calling thread, except in tests). */
    static Magazine ofThread(MemoryPool pool, Thread owner) {
        return new Magazine(pool, owner);
    }

    /** A magazine shared by the threads that take its {@link #lock}. */
    static Magazine shared(MemoryPool pool) {
        return new Magazine(pool, null);
    }

    // ------------------------------------------------------------------ fast path

    /**
     * Owner of a thread magazine only: a buffer on a segment of {@code sizeClass}, with the segment's own object
     * ({@link SizeClassChunk#allocateBound}). Takes a new slab from the system itself when it must.
     */
    MagByteBuf allocate(int sizeClass, int initialCapacity, int maxCapacity) {
        SizeClassChunk chunk = current[sizeClass];
        MagByteBuf buf;
        if (chunk == null || (buf = chunk.allocateBound()) == null) {
            buf = refill(sizeClass, true).allocateBound();
        }
        buf.reuse(initialCapacity, maxCapacity);
        return buf;
    }

    /**
     * Lock holder of a shared magazine: gives {@code buf}, an object of the caller's own thread, a segment of
     * {@code sizeClass}. Returns false instead of taking a slab from the system, which the caller then does without holding the lock: the JDK may collect garbage and sleep before it
     * gives up direct memory, and the threads waiting for this lock must not wait for that too.
     */
    boolean tryAllocate(MagByteBuf buf, int sizeClass, int initialCapacity, int maxCapacity) {
        SizeClassChunk chunk = current[sizeClass];
        int segment;
        if (chunk == null || (segment = chunk.allocateSegment()) < 0) {
            chunk = refill(sizeClass, false);
            if (chunk == null) {
                return false;
            }
            segment = chunk.allocateSegment();
        }
        buf.init(chunk, segment, chunk.offsetOf(segment), chunk.segmentSize, initialCapacity, maxCapacity);
        return true;
    }

    /**
     * Lock holder of a shared magazine, after {@link #tryAllocate} returned false (maybe on another stripe) and the
     * caller took {@code slab} from the system: uses it for a new chunk, unless segments came back meanwhile, in
     * which case the slab goes to the reuse pool.
     */
    MagByteBuf allocateOnNewSlab(MagByteBuf buf, int sizeClass, int initialCapacity, int maxCapacity, Slab slab) {
        if (tryAllocate(buf, sizeClass, initialCapacity, maxCapacity)) {
            pool.releaseSlab(slab);
            return buf;
        }
        SizeClassChunk chunk = makeCurrent(sizeClass, pool.newChunk(this, sizeClass, slab));
        int segment = chunk.allocateSegment();
        buf.init(chunk, segment, chunk.offsetOf(segment), chunk.segmentSize, initialCapacity, maxCapacity);
        return buf;
    }

    /**
     * Owner release of a segment. Two counts need work: the first free segment and the last one; and on a stripe,
     * every count of a chunk another thread has released into ({@code remotelyReleased}), whose remote releasers
     * compare it ({@link #onParkedChunkFreed}). That mark is never set on a thread magazine's chunks, and it keeps
     * per-release work off the plain-thread path of chunks no other thread releases into.
     */
    void releaseLocal(SizeClassChunk chunk, int segment) {
        int free = chunk.pushLocal(segment);
        if (free == 1 || free == chunk.segmentCount || chunk.lvRemotelyReleased()) {
            onFreeCountEdge(chunk);
        }
    }

    /** Cold: a parked chunk's free count rose (see {@link #releaseLocal}); nothing to do for a current chunk. */
    private void onFreeCountEdge(SizeClassChunk chunk) {
        if (!chunk.current) {
            onParkedChunkFreed(chunk);
        }
    }

    // ------------------------------------------------------------------ shared ownership: the lock

    /**
     * Any thread (id {@code threadId}), while the magazine is shared. A stripe takes a buffer released by a thread
     * other than the one that allocated it through the chunk's remote queue, like a thread magazine: that thread
     * (the consumer of a producer's buffers) then never touches the lock the producer takes for every allocation
     * (except once per chunk, {@link #onFirstRemoteRelease}), and the lock holder collects the segments in batches
     * at its next refill of the class, or at trim, or at once when the release empties a parked chunk (protocol 2b
     * in docs/design.md). Otherwise the segment goes back under the lock, waiting for it if it is busy (one critical
     * section, one allocation, in the common case). So an ended thread's magazine, which nobody allocates from, and
     * a stripe retire a parked chunk as soon as its last buffer is released.
     */
    void releaseShared(MagByteBuf buf, SizeClassChunk chunk, int segment, long threadId) {
        if (stripe && !allocatedOn(buf, threadId)) {
            chunk.releaseRemote(segment);
            if (!chunk.lvRemotelyReleased()) {
                onFirstRemoteRelease(chunk);
            } else if (chunk.remoteFrees.size() + chunk.lvParkedFreeCount() == chunk.segmentCount) {
                // Every segment is free, in the queue or on the local list of a parked chunk: it is empty, but only
                // a lock holder can retire it, and nobody may allocate that size here again soon. Both counts were
                // read after our offer, when the chunk may already have been drained and even reused elsewhere: such
                // a read costs a sweep that finds nothing to do. That no emptied chunk is missed is the handshake
                // with the lock holder's side (publishParkedFreeCount).
                sweepParkedChunk(chunk);
            }
            return;
        }
        lock();
        try {
            releaseLocal(chunk, segment);
        } finally {
            unlock();
        }
    }

    /**
     * Owner, cold: a parked chunk's free count rose. On a stripe, publishes the count and collects the chunk's queue
     * if that makes it empty ({@link #publishParkedFreeCount}); then retires the chunk if it is entirely free, or
     * moves it from the full list to the partial one if it has a free segment. Invariant: {@code chunk in partial[c]
     * => chunk.freeCount > 0}, for refill makes a partial chunk current without looking (found while building this:
     * a first remote release that found its segment already collected moved a full chunk here, the next allocation
     * of its size took segment -1, a buffer at a negative offset, and {@code ThreadChurn} failed in half its runs).
     */
    private void onParkedChunkFreed(SizeClassChunk chunk) {
        if (stripe) {
            publishParkedFreeCount(chunk);
        }
        if (chunk.isEntirelyFree()) {
            chunk.list.remove(chunk);
            retire(chunk);
        } else if (chunk.freeCount > 0 && chunk.list == full[chunk.sizeClass]) {
            chunk.list.remove(chunk);
            partialOf(chunk.sizeClass).add(chunk);
        }
    }

    /**
     * Lock holder of a stripe: {@code parkedFreeCount = freeCount} for a chunk just parked or whose free count rose,
     * then, if the segments in its queue are all the others, collects them. With {@link #releaseShared}'s remote
     * release (offer, then read both counts) this is Dekker's handshake: each side writes its count with a volatile
     * write and then reads the other's, so of a last local release and a last remote release that race, at least one
     * sees the chunk empty. A release store here would let both miss (x86 lets a store wait in the store buffer past
     * the load after it), and the empty chunk would wait for its size's next refill or trim().
     */
    private static void publishParkedFreeCount(SizeClassChunk chunk) {
        int free = chunk.freeCount;
        chunk.svParkedFreeCount(free);
        if (free + chunk.remoteFrees.size() == chunk.segmentCount) {
            // The queue's size counts claimed slots whose values may not be stored yet: wait for them.
            chunk.drainRemoteWaitingForClaims();
        }
    }

    /**
     * Cold, once per chunk and magazine: the first release into this stripe's {@code chunk} from a thread other than
     * the one that allocated the buffer. Marks the chunk, so that lock holders keep its {@code parkedFreeCount} exact
     * from then on ({@link #releaseLocal}); before the mark they publish it only when parking the chunk and at its
     * edges, which keeps per-release work off chunks that only their own threads release into (AllocPattern on a
     * plain thread took 36-37 instead of 32 ns when every release published). Then, under the lock, publishes the
     * exact count of a parked chunk, and collects and retires the chunk if that makes it empty: a holder that freed a
     * segment between our mark and our lock may not have seen the mark, and our lock orders us after it.
     *
     * <p>{@code chunk.magazine == this} under our lock means the chunk is ours to drain: it may have been drained,
     * retired and taken elsewhere since we released into it, and a retirement by us happened before our lock and
     * cleared the field. Never called with the lock held (not reentrant).
     */
    private void onFirstRemoteRelease(SizeClassChunk chunk) {
        chunk.svRemotelyReleased(true);
        lock();
        try {
            if (chunk.magazine == this && !chunk.current) {
                chunk.drainRemote();
                onParkedChunkFreed(chunk);
            }
        } finally {
            unlock();
        }
    }

    /**
     * Cold, a stripe's remote releaser that found {@code chunk} empty: under the lock, collects its queue and retires
     * it, if it is still this stripe's parked chunk (see {@link #onFirstRemoteRelease} for why the check is sound).
     */
    private void sweepParkedChunk(SizeClassChunk chunk) {
        lock();
        try {
            if (chunk.magazine == this && !chunk.current && chunk.drainRemoteWaitingForClaims() > 0) {
                onParkedChunkFreed(chunk);
            }
        } finally {
            unlock();
        }
    }

    /**
     * True if {@code buf} was handed out on the thread with id {@code threadId}: a stripe's buffers take their
     * object from the allocating thread's cache. (An object that came to hold a stripe's segment by growth
     * (swapped memory) may have another home; its release then takes the remote queue, which is right too.)
     */
    private static boolean allocatedOn(MagByteBuf buf, long threadId) {
        ObjectHome home = buf.home;
        return home instanceof BufferObjectCache && ((BufferObjectCache) home).ownerThreadId == threadId;
    }

    /**
     * Any thread, after queueing a segment in a chunk of this magazine while another thread owned it: if the
     * magazine became shared meanwhile, its lock holders take segments only from the lock and from
     * {@link #abandon}'s drain, which may have run before our segment arrived; drain again.
     */
    void onRemoteReleaseRaced() {
        if (lvOwnerThreadId() == SHARED) {
            sweepRemoteReleases();
        }
    }

    /**
     * Cold: drains every chunk's remote queue under the lock, waiting for it if it is busy. For segments that only a
     * lock holder may take from the queues (a shared magazine's) and that no holder may look for soon. The caller
     * sweeps itself rather than asking the holder to: a request published for the holder can be missed by it (its
     * unlock is a release store, which its next loads may pass, see {@link StripeLock}), so the caller would have
     * to wait for the lock anyway. Never called with this magazine's lock held (not reentrant).
     */
    private void sweepRemoteReleases() {
        lock();
        try {
            collectAllRemoteReleases(false);
        } finally {
            unlock();
        }
    }

    boolean tryLock() {
        return lock.tryLock();
    }

    void lock() {
        lock.lock();
    }

    void unlock() {
        lock.unlock();
    }

    // ------------------------------------------------------------------ cold paths

    /**
     * The current chunk of the class is exhausted (or missing): collect its foreign releases, else switch to the
     * partial chunk that has waited longest (it has gathered the most free segments), else look through the full
     * chunks for foreign releases, else take a chunk or slab from the reuse pool, else (if {@code mayTakeNewSlab})
     * a new slab from the system. Returns the chunk, now current, or null when only a new slab would do.
     */
    private SizeClassChunk refill(int sizeClass, boolean mayTakeNewSlab) {
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
            next = pool.takePooledChunk(this, sizeClass);
        }
        if (next == null) {
            if (!mayTakeNewSlab) {
                return null;
            }
            // May throw OutOfMemoryError: nothing has changed yet.
            next = pool.newChunk(this, sizeClass, pool.allocateSlab(nextChunkSize(sizeClass)));
        }
        return makeCurrent(sizeClass, next);
    }

    /** Parks the exhausted current chunk of the class, if any, among the full ones and makes {@code next} current. */
    private SizeClassChunk makeCurrent(int sizeClass, SizeClassChunk next) {
        SizeClassChunk exhausted = current[sizeClass];
        if (exhausted != null) {
            exhausted.current = false;
            fullOf(sizeClass).add(exhausted);
            if (stripe) {
                // Not collected even if that empties it: it was exhausted a moment ago, and refill may return it.
                exhausted.svParkedFreeCount(exhausted.freeCount);
            }
        }
        assert next.freeCount > 0 : "a chunk with no free segment made current";
        next.current = true;
        if (stripe) {
            next.svParkedFreeCount(SizeClassChunk.NOT_PARKED);
        }
        current[sizeClass] = next;
        return next;
    }

    /** Slab size of the next chunk of the class: small for the magazine's first one, so rare classes cost little. */
    int nextChunkSize(int sizeClass) {
        return chunkCount(sizeClass) == 0 ? SizeClasses.firstChunkSizeOf(sizeClass) : SizeClasses.chunkSizeOf(sizeClass);
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
                if (stripe) {
                    publishParkedFreeCount(chunk);
                }
            }
        }
        SizeClassChunk next = partialList.pollFirst();
        if (next == null) {
            return empty;
        }
        if (empty != null) {
            partialList.add(empty);
            if (stripe) {
                empty.svParkedFreeCount(empty.freeCount);
            }
        }
        return next;
    }

    /**
     * Owner: drains the remote queue of every non-current chunk, retires those entirely free and moves full ones
     * that got segments back to the partial list. With {@code waitForClaims}, waits for producers that have claimed
     * a queue slot but not yet published their segment, so that nothing released before this call is left behind.
     */
    private void collectAllRemoteReleases(boolean waitForClaims) {
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            collectRemoteReleases(partial[sizeClass], waitForClaims);
            collectRemoteReleases(full[sizeClass], waitForClaims);
        }
    }

    private void collectRemoteReleases(ChunkList list, boolean waitForClaims) {
        if (list == null) {
            return;
        }
        for (SizeClassChunk chunk = list.first(), following; chunk != null; chunk = following) {
            following = chunk.next;
            int moved = waitForClaims ? chunk.drainRemoteWaitingForClaims() : chunk.drainRemote();
            if (moved > 0 || chunk.isEntirelyFree()) {
                onParkedChunkFreed(chunk);
            }
        }
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
        if (stripe) {
            chunk.svParkedFreeCount(SizeClassChunk.NOT_PARKED);
        }
        if (isAbandoned()) {
            pool.metrics.abandonedChunkBytes.addAndGet(-chunk.slab.size);
        }
        pool.retireChunk(chunk);
    }

    /** A thread's magazine whose thread has ended; owner (lock holder) only. */
    private boolean isAbandoned() {
        return !stripe && lvOwnerThreadId() == SHARED;
    }

    /** Owner only: gives {@code buf} memory above the size classes, a run of pages in a large chunk. */
    MagByteBuf allocateLarge(MagByteBuf buf, int initialCapacity, int maxCapacity) {
        if (trimRequested) {
            trimOwned();
        }
        int runBytes = noteLargeRequest(initialCapacity);
        if (!allocateFromLargeChunks(buf, runBytes, initialCapacity, maxCapacity)) {
            allocateOnNewLargeChunk(buf, pool.takeLargeSlab(largeChunkSize(runBytes)), runBytes, initialCapacity,
                maxCapacity);
        }
        return buf;
    }

    /** Lock holder of a shared magazine: like {@link #allocateLarge}, but false instead of a new slab (see {@link #tryAllocate}). */
    boolean tryAllocateLarge(MagByteBuf buf, int initialCapacity, int maxCapacity) {
        int runBytes = noteLargeRequest(initialCapacity);
        if (allocateFromLargeChunks(buf, runBytes, initialCapacity, maxCapacity)) {
            return true;
        }
        Slab pooled = pool.takePooledLargeSlab(largeChunkSize(runBytes));
        if (pooled == null) {
            return false;
        }
        allocateOnNewLargeChunk(buf, pooled, runBytes, initialCapacity, maxCapacity);
        return true;
    }

    /** Lock holder of a shared magazine, with a slab the caller took from the system without the lock. */
    MagByteBuf allocateLargeOnNewSlab(MagByteBuf buf, int initialCapacity, int maxCapacity, Slab slab) {
        int runBytes = LargeChunk.runBytes(initialCapacity);
        if (allocateFromLargeChunks(buf, runBytes, initialCapacity, maxCapacity)) {
            pool.releaseLargeSlab(slab);
        } else {
            allocateOnNewLargeChunk(buf, slab, runBytes, initialCapacity, maxCapacity);
        }
        return buf;
    }

    /** Slab size of a new large chunk for a run of {@code runBytes}. */
    int largeChunkSize(int runBytes) {
        return pool.largeChunkSizeFor(runBytes, averageLargeSize);
    }

    /** Keeps the running average of large request sizes, which sizes large chunks; returns the run's bytes. */
    int noteLargeRequest(int initialCapacity) {
        int runBytes = LargeChunk.runBytes(initialCapacity);
        averageLargeSize += (runBytes - averageLargeSize) >> 3;
        return runBytes;
    }

    /** Owner: first fit over the large chunks; false if none has a long enough run of free pages. */
    private boolean allocateFromLargeChunks(MagByteBuf buf, int runBytes, int initialCapacity, int maxCapacity) {
        if (lvLargeChunkEmptied()) {
            // Cleared before the chunks are looked at, so an emptying that this pass misses sets it again.
            soLargeChunkEmptied(false);
            releaseSpareLargeChunks();
        }
        ArrayList<LargeChunk> chunks = largeChunks;
        for (int i = 0, n = chunks.size(); i < n; i++) {
            LargeChunk chunk = chunks.get(i);
            int offset = chunk.allocate(runBytes);
            if (offset >= 0) {
                buf.init(chunk, -1, offset, runBytes, initialCapacity, maxCapacity);
                return true;
            }
        }
        return false;
    }

    /** Owner: a new large chunk on {@code slab} (at least {@code runBytes} bytes), with {@code buf}'s run first. */
    private void allocateOnNewLargeChunk(MagByteBuf buf, Slab slab, int runBytes, int initialCapacity,
                                         int maxCapacity) {
        LargeChunk chunk = pool.newLargeChunk(this, slab);
        largeChunks.add(chunk);
        buf.init(chunk, -1, chunk.allocate(runBytes), runBytes, initialCapacity, maxCapacity);
    }

    /**
     * Any thread, holding no lock: a release emptied one of this magazine's large chunks. The owner keeps some empty
     * chunks for the next requests and gives the others back ({@link #releaseSpareLargeChunks}). A thread's magazine
     * does that at its owner's next large allocation: the flag is written only when not already set, so a stream
     * of releases does not keep writing the releasers' cache line. A stripe's releaser does it at once, under the
     * lock: a stripe has no owner that comes back, and the plain threads that lock it next may not ask for a large
     * buffer for a long time, while a burst's emptied chunks stay reserved (before, a thread-churn run ended with
     * 40-56 empty large chunks per memory type in two stripes, until {@code trim()}). The releaser holds no lock
     * here (buffers are freed outside every magazine's lock), so waiting for the stripe's cannot deadlock.
     */
    void onLargeChunkEmptied() {
        if (stripe) {
            lock();
            try {
                releaseSpareLargeChunks();
            } finally {
                unlock();
            }
        } else if (!lvLargeChunkEmptied()) {
            soLargeChunkEmptied(true);
        }
    }

    /**
     * Owner: gives back the unused large chunks beyond a spare allowance: one chunk, and more while they add up to
     * at most a share of the bytes of the chunks in use; which ones and what share, {@link LargeSlabReturn} says.
     * Why only a share: a burst that is over should not stay reserved. Sorting allocates nothing here: below 32
     * elements the JDK sorts in place.
     */
    private void releaseSpareLargeChunks() {
        ArrayList<LargeChunk> unused = unusedLargeChunks;
        long inUseBytes = 0;
        for (int i = 0, n = largeChunks.size(); i < n; i++) {
            LargeChunk chunk = largeChunks.get(i);
            if (chunk.isUnused()) {
                unused.add(chunk);
            } else {
                inUseBytes += chunk.slab.size;
            }
        }
        LargeSlabReturn policy = pool.largeSlabReturn;
        if (policy.biggestSparesFirst) {
            unused.sort(BIGGEST_FIRST);
        }
        long allowance = inUseBytes / policy.spareShare;
        long spareBytes = 0;
        for (int i = 0, n = unused.size(); i < n; i++) {
            LargeChunk chunk = unused.get(i);
            spareBytes += chunk.slab.size;
            if (i > 0 && spareBytes > allowance) {
                largeChunks.remove(chunk);
                chunk.detach();
            }
        }
        unused.clear();
    }

    /** Owner: gives back every large chunk no buffer uses (trim). */
    private void detachUnusedLargeChunks() {
        for (int i = 0; i < largeChunks.size(); ) {
            LargeChunk chunk = largeChunks.get(i);
            if (chunk.isUnused()) {
                largeChunks.remove(i);
                chunk.detach();
            } else {
                i++;
            }
        }
    }

    /**
     * Owner only: gives every entirely free chunk, current ones included, back to the reuse pool, and every large
     * chunk no buffer uses.
     */
    void trimOwned() {
        trimRequested = false;
        detachUnusedLargeChunks();
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
        }
        collectAllRemoteReleases(false);
    }

    /**
     * The owning thread will never use this magazine again (it exits, detaches, or died and is being reaped): the
     * magazine becomes shared. Runs once, on the owner or, after its death, on the reaper (the thread's writes
     * happen-before {@code isAlive()} returned false).
     *
     * <p>Protocol (docs/design.md, protocol 3): take the lock, then publish {@link #SHARED} with a volatile write.
     * From then on releasers take the lock (waiting while we hold it). A releaser that read the old owner id queues
     * its segment in the chunk's remote queue; we drain every queue after the volatile write, waiting for claimed
     * slots, and a releaser whose claim came after our drain reads {@link #SHARED} afterwards and drains again
     * itself ({@link #onRemoteReleaseRaced}). Entirely free chunks are retired now; the others when their last
     * buffer is released.
     */
    void abandon() {
        lock.lock();
        try {
            svOwnerThreadId(SHARED);
            pool.metrics.magazinesAbandoned.incrementAndGet();
            // Counted before any chunk can be retired (only the lock holder, us, can retire): retire subtracts.
            long heldBytes = chunkBytes();
            pool.metrics.abandonedChunkBytes.addAndGet(heldBytes);
            if (objects != null) {
                objects.close();
            }
            // Large chunks need no drain: any thread gives pages back directly, and a detached chunk's slab goes
            // back with its last page.
            for (LargeChunk chunk : largeChunks) {
                chunk.detach();
            }
            largeChunks.clear();
            for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
                SizeClassChunk chunk = current[sizeClass];
                if (chunk != null) {
                    current[sizeClass] = null;
                    chunk.current = false;
                    (chunk.freeCount > 0 ? partialOf(sizeClass) : fullOf(sizeClass)).add(chunk);
                }
            }
            collectAllRemoteReleases(true);
            JfrEvents.magazineEnded(this, heldBytes);
        } finally {
            unlock();
        }
    }

    /** Number of chunks this magazine holds for {@code sizeClass}; owner only. */
    int chunkCount(int sizeClass) {
        return (current[sizeClass] == null ? 0 : 1) + sizeOf(partial[sizeClass]) + sizeOf(full[sizeClass]);
    }

    /** Number of chunks this magazine holds; owner only. */
    int chunkCount() {
        int n = 0;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            n += chunkCount(sizeClass);
        }
        return n;
    }

    private static int sizeOf(ChunkList list) {
        return list == null ? 0 : list.size();
    }

    /** Slab bytes of every chunk this magazine holds; owner only. */
    long chunkBytes() {
        long bytes = 0;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            if (current[sizeClass] != null) {
                bytes += current[sizeClass].slab.size;
            }
            bytes += slabBytes(partial[sizeClass]) + slabBytes(full[sizeClass]);
        }
        return bytes;
    }

    private static long slabBytes(ChunkList list) {
        long bytes = 0;
        for (SizeClassChunk chunk = list == null ? null : list.first(); chunk != null; chunk = chunk.next) {
            bytes += chunk.slab.size;
        }
        return bytes;
    }
}

/** What threads other than the owner read and write when they release a buffer of the magazine. */
abstract class MagazineShared extends CacheLinePadding {
    /** {@link #ownerThreadId} of a shared magazine: matches no thread, so releasers take the lock. */
    static final long SHARED = -1;

    private static final VarHandle OWNER_THREAD_ID;
    private static final VarHandle LARGE_CHUNK_EMPTIED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OWNER_THREAD_ID = lookup.findVarHandle(MagazineShared.class, "ownerThreadId", long.class);
            LARGE_CHUNK_EMPTIED = lookup.findVarHandle(MagazineShared.class, "largeChunkEmptied", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The owning thread's id, or {@link #SHARED}. Written twice at most: in the constructor, and once to
     * {@link #SHARED} by {@link Magazine#abandon} (volatile). A releasing thread compares it with its own id: it
     * can equal its own id only while it is the owner (ids are never reused, and the owner's own write of
     * {@link #SHARED} comes before anything it does later), so a stale read sends a release to the remote queue,
     * which {@link Magazine#abandon} and {@link Magazine#onRemoteReleaseRaced} make safe.
     */
    private volatile long ownerThreadId;
    /** The owning thread, weakly, so a dead thread can be noticed without being kept reachable; null if shared. */
    final WeakReference<Thread> ownerThread;
    /**
     * True for a plain threads' stripe, shared from birth; false for a thread's magazine, also once it has ended.
     * Decides how other threads' releases come back ({@link Magazine#releaseShared}).
     */
    final boolean stripe;
    /** Whoever holds it owns a shared magazine. A thread's magazine uses it only once abandoned. */
    final StripeLock lock = new StripeLock();
    /**
     * A release emptied a large chunk of this thread's magazine (never set on a stripe): its owner may give spare
     * ones back ({@link Magazine#onLargeChunkEmptied}).
     */
    private volatile boolean largeChunkEmptied;

    MagazineShared(Thread owner) {
        this.ownerThreadId = owner == null ? SHARED : owner.getId();
        this.ownerThread = owner == null ? null : new WeakReference<>(owner);
        this.stripe = owner == null;
    }

    final long lvOwnerThreadId() {
        return ownerThreadId;
    }

    final void svOwnerThreadId(long id) {
        OWNER_THREAD_ID.setVolatile(this, id);
    }

    final boolean lvLargeChunkEmptied() {
        return largeChunkEmptied;
    }

    /**
     * Volatile store: the owner's clearing store must come before its look at the chunks (a later emptying is then
     * seen by the next look), and a releaser's setting store after its unlock of the emptied chunk.
     */
    final void soLargeChunkEmptied(boolean emptied) {
        LARGE_CHUNK_EMPTIED.setVolatile(this, emptied);
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

    MagazinePad(Thread owner) {
        super(owner);
    }
}
