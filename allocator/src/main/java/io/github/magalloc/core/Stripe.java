package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

/**
 * A magazine shared by plain threads (threads without one of their own), owned by whoever holds its lock
 * (protocol 2 (stripes)). The caller of an allocation holds the lock and brings a buffer object of its own
 * thread's cache; a release on the thread that allocated the buffer goes back under the lock, a release on any
 * other thread through the chunk's remote queue (protocol 2a (remote releases into a stripe)), and the release
 * that empties a parked chunk, on either side, retires it (protocol 2b (parked chunks)). Nothing is left for the
 * lock holder to finish after it unlocks ({@link PaddedSpinLock}).
 *
 * <h2>The parked mirror, written only here</h2>
 * A remote releaser may not read the owner's {@code freeCount}, so the lock holder keeps a copy on the chunk's
 * releaser-side line. At every unlock:
 * <pre>
 *   chunk parked                    =>  parkedFreeCount <= freeCount   (== once the chunk is marked and the
 *                                                                        marking releaser has had the lock)
 *   chunk current or retired        =>  parkedFreeCount == NOT_PARKED
 * </pre>
 * {@link #onPlaceChanged} writes it at every move, {@link #publishParkedFreeCount} at every rise of a parked
 * chunk's count (with the handshake), and nothing else does.
 */
final class Stripe extends Magazine {
    private final PaddedSpinLock lock = new PaddedSpinLock();
    /** What a lock holder retired, given back by it right after its unlock ({@link #unlock}). */
    private final GivenBackAfterUnlock givenBackAfterUnlock = new GivenBackAfterUnlock();
    private final LargeChunks large;
    /**
     * Lock holder only: the object cache of the plain thread that last allocated here. Plain threads mostly come back
     * to the same stripe, and finding their cache through the JDK {@code ThreadLocal} is a hash probe and a
     * weak-reference check per allocation. Used only when its {@link BufferObjectCache#ownerThreadId} is the
     * caller's: thread ids are never reused, so it is then exactly the cache the {@code ThreadLocal} would return.
     * Dropped by {@link #trim}, so a dead thread's cache stays reachable from at most each stripe, until the next
     * trim or the next plain thread on that stripe.
     */
    BufferObjectCache lastPlainThreadObjects;
    /** The buffer objects of the virtual threads that allocate here, too short-lived for caches of their own. */
    final VirtualThreadObjects virtualThreadObjects;

    Stripe(ChunkSupply supply) {
        super(supply, NO_OWNER_THREAD);
        this.large = new LargeChunks(supply, this);
        this.virtualThreadObjects = new VirtualThreadObjects(supply.context, lock);
    }

    boolean tryLock() {
        return lock.tryLock();
    }

    void lock() {
        lock.lock();
    }

    /**
     * Unlocks, then gives back what this holder retired under the lock: a lock holder never frees a slab, takes the
     * reuse pool's lock or starts a thread ({@link GivenBackAfterUnlock}).
     */
    void unlock() {
        if (!givenBackAfterUnlock.any()) {
            lock.unlock();
            return;
        }
        GivenBackAfterUnlock.Batch batch = givenBackAfterUnlock.takeAll();
        lock.unlock();
        batch.giveBack(supply);
    }

    @Override
    GiveBack giveBack() {
        return givenBackAfterUnlock;
    }

    /** Whether some thread holds the lock now (a snapshot, for tests). */
    boolean isLockedForTests() {
        return lock.isHeld();
    }

    // ------------------------------------------------------------------ allocation (lock holder)

    /**
     * Lock holder: where the calling thread takes its buffer objects from. A platform thread: its own cache, from
     * {@code threadObjects} unless remembered. A virtual thread: this stripe's {@link #virtualThreadObjects}; it gets
     * no cache and no {@code ThreadLocal} entry, which would be garbage when it ends.
     */
    ObjectCache objectsOfCaller(PlainThreadObjects threadObjects) {
        assert lock.isHeld();
        BufferObjectCache objects = lastPlainThreadObjects;
        Thread caller = Thread.currentThread();
        if (objects != null && objects.ownerThreadId == caller.getId()) {
            return objects;
        }
        if (VirtualThreads.isVirtual(caller)) {
            return virtualThreadObjects;
        }
        objects = threadObjects.ofCurrentThread();
        lastPlainThreadObjects = objects;
        return objects;
    }

    /**
     * Lock holder: gives {@code buf} a segment of {@code sizeClass}, using {@code spare} (a slab the caller took
     * from the system, or null) only if nothing else has a free segment; a spare not needed goes to the reuse pool.
     * Returns false, instead of taking a slab from the system, only without a spare: the caller then takes one
     * with no lock held, because the JDK may collect garbage and sleep before it gives up direct memory, and the
     * threads waiting for this lock must not wait for that too.
     * A {@code request} is counted in the size class's requests; a move's new memory is not.
     */
    boolean allocate(MagByteBuf buf, int sizeClass, int initialCapacity, int maxCapacity, Slab spare,
                     boolean request) {
        assert lock.isHeld();
        SizeClassChunk chunk = current(sizeClass);
        int segment;
        if (chunk == null || (segment = chunk.allocateSegment()) < 0) {
            chunk = refill(sizeClass, spare);
            if (chunk == null) {
                return false;
            }
            segment = chunk.allocateSegment();
        } else if (spare != null) {
            givenBackAfterUnlock.spare(spare);
        }
        buf.init(chunk, segment, chunk.offsetOf(segment), chunk.segmentSize, initialCapacity, maxCapacity);
        if (request) {
            requests.count(sizeClass, initialCapacity);
        }
        return true;
    }

    /**
     * Lock holder: like {@link #allocate}, for a request above the size classes (a run of pages). The request is
     * counted into the chunk-size average once, at its first attempt (the one without a spare).
     */
    boolean allocateLarge(MagByteBuf buf, int initialCapacity, int maxCapacity, Slab spare) {
        assert lock.isHeld();
        int runBytes = spare == null ? large.noteRequest(initialCapacity) : LargeChunk.runBytes(initialCapacity);
        return large.allocate(buf, runBytes, initialCapacity, maxCapacity, spare);
    }

    /** Lock holder: slab size of a new large chunk for a request of {@code initialCapacity} bytes. */
    int newLargeSlabSize(int initialCapacity) {
        return large.chunkSizeFor(LargeChunk.runBytes(initialCapacity));
    }

    /** Gives back, under the lock, every entirely free chunk and unused large chunk, and forgets the last cache. */
    void trim() {
        lock.lock();
        try {
            large.detachUnused();
            retireFreeChunks();
            lastPlainThreadObjects = null;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------ releases

    /** The caller takes a stripe's new slabs, with no lock held ({@link Stripes#allocate}). */
    @Override
    boolean takesNewSlabs() {
        return false;
    }

    @Override
    boolean isThreadMagazine() {
        return false;
    }

    @Override
    boolean marksUnusedPeriods() {
        return false;
    }

    /**
     * Any thread's release of a buffer of this stripe: under the lock (waiting for it: one critical section, one
     * allocation, usually) when it is the thread that allocated the buffer; else through the chunk's remote queue,
     * so that the consumer of a producer's buffers never touches the lock the producer takes for every allocation,
     * except once per chunk to mark it ({@link #onFirstRemoteRelease}). A remote release that makes a marked parked
     * chunk empty sweeps it.
     */
    @Override
    void releaseFromOtherThread(MagByteBuf buf, SizeClassChunk chunk, int segment, long threadId) {
        if (allocatedOn(buf, threadId)) {
            lock.lock();
            try {
                releaseLocal(chunk, segment);
                assert mirrorHolds(chunk) : "the parked mirror broken";
            } finally {
                unlock();
            }
            return;
        }
        chunk.releaseRemote(segment);
        if (!chunk.lvRemotelyReleased()) {
            onFirstRemoteRelease(chunk);
        } else if (chunk.remoteFrees.size() + chunk.lvParkedFreeCount() == chunk.segmentCount) {
            // Every segment is free, in the queue or on the local list of a parked chunk: it is empty, but only a
            // lock holder can retire it. Both counts were read after our offer, when the chunk may already have been
            // drained and even reused elsewhere: such a read costs a sweep that finds nothing to do. That no emptied
            // chunk is missed is the handshake with publishParkedFreeCount.
            sweepParkedChunk(chunk);
        }
    }

    /**
     * True if {@code buf} was handed out on thread {@code threadId}, which its object's home knows: a stripe's
     * buffers take their object from an {@link ObjectCache}. (An object that came to hold a stripe's segment by
     * growth may have another home; its release then takes the remote queue, which is right too.)
     */
    private static boolean allocatedOn(MagByteBuf buf, long threadId) {
        return buf.home() instanceof ObjectCache && ((ObjectCache) buf.home()).handedOutOn(buf, threadId);
    }

    /**
     * Cold, once per chunk: the first remote release into {@code chunk}. Marks it, so that lock holders keep its
     * copy exact from then on ({@link #releaseLocal} sees the mark); before the mark they publish it only at the
     * chunk's moves and edges, which keeps per-release work off chunks that only their own threads release into.
     * Then, under the lock, publishes the exact count of a parked chunk and retires the chunk if that empties it: a
     * holder that freed a segment between our mark and our lock may not have seen the mark, and our lock orders us
     * after it. {@code chunk.lpMagazine() == this} under our lock means the chunk is still ours: a retirement by us
     * happened before our lock and cleared the field.
     */
    private void onFirstRemoteRelease(SizeClassChunk chunk) {
        chunk.svRemotelyReleased(true);
        lock.lock();
        try {
            if (chunk.lpMagazine() == this && chunk.isParked()) {
                chunk.drainRemote();
                onParkedChunkFreed(chunk);
            }
        } finally {
            unlock();
        }
    }

    /** Cold, a remote releaser that found {@code chunk} empty: under the lock, collects its queue and retires it. */
    private void sweepParkedChunk(SizeClassChunk chunk) {
        lock.lock();
        try {
            if (chunk.lpMagazine() == this && chunk.isParked() && chunk.drainRemoteWaitingForClaims() > 0) {
                onParkedChunkFreed(chunk);
            }
        } finally {
            unlock();
        }
    }

    /**
     * A release emptied {@code chunk}, one of the stripe's large chunks: the releaser counts it as a spare and gives
     * back the spares beyond the allowance now, under the lock. A stripe has no owner that comes back, and the plain
     * threads that lock it next may not ask for a large buffer for a long time. The releaser holds no lock here
     * (buffers are freed outside every magazine's lock), so waiting for the stripe's cannot deadlock.
     */
    @Override
    void onLargeChunkEmptied(LargeChunk chunk) {
        lock.lock();
        try {
            large.onEmptied(chunk);
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------ the parked mirror

    /**
     * Written only when it changes: a volatile store costs a fence, and a refill moves a chunk twice (out of its list,
     * then current). Not a handshake site: a parked chunk's count rises only in {@link #publishParkedFreeCount}.
     */
    @Override
    void onPlaceChanged(SizeClassChunk chunk) {
        assert chunk.lvParkedFreeCount() <= chunk.freeCount : "the parked mirror above the count it copies";
        int mirror = chunk.isParked() ? chunk.freeCount : SizeClassChunk.NOT_PARKED;
        if (chunk.lvParkedFreeCount() != mirror) {
            chunk.svParkedFreeCount(mirror);
        }
    }

    @Override
    void onParkedFreeCountRose(SizeClassChunk chunk) {
        publishParkedFreeCount(chunk);
    }

    /**
     * Lock holder: {@code parkedFreeCount = freeCount} for a parked chunk whose count rose, then, if the segments in
     * its queue are all the others, collects them. With {@link #releaseFromOtherThread}'s remote release (offer,
     * then read both counts) this is Dekker's handshake: each side writes its count with a volatile write and then
     * reads the other's, so of a last local release and a last remote release that race, at least one sees the
     * chunk empty. A release store here would let both miss (x86 lets a store wait in the store buffer past the
     * load after it), and the empty chunk would wait for its size's next refill or {@code trim()}.
     */
    private static void publishParkedFreeCount(SizeClassChunk chunk) {
        assert chunk.isParked() && chunk.lvParkedFreeCount() != SizeClassChunk.NOT_PARKED
            && chunk.lvParkedFreeCount() <= chunk.freeCount : "the parked mirror is not below the count it copies";
        int free = chunk.freeCount;
        chunk.svParkedFreeCount(free);
        if (free + chunk.remoteFrees.size() == chunk.segmentCount) {
            // The queue's size counts claimed slots whose values may not be stored yet: wait for them.
            chunk.drainRemoteWaitingForClaims();
        }
    }

    /**
     * For assertions, lock held, after a release into {@code chunk}: the mirror's invariant (above). Not whether a
     * marked chunk's copy is exact: a mark set after this release looked for it may make it exact only later.
     */
    private boolean mirrorHolds(SizeClassChunk chunk) {
        if (chunk.lpMagazine() != this) {
            return true; // retired by this release; the chunk may be elsewhere by now
        }
        int mirror = chunk.lvParkedFreeCount();
        return chunk.isParked() ? mirror != SizeClassChunk.NOT_PARKED && mirror <= chunk.freeCount
            : mirror == SizeClassChunk.NOT_PARKED;
    }
}
