package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

import java.util.Arrays;

/**
 * A slab cut into {@link #segmentCount} equal segments of one size class.
 *
 * <h2>Who writes what</h2>
 * <ul>
 *   <li>{@link #freeSegments}, {@link #freeCount}, {@link #objects}: the owner only, that is the thread of the
 *       {@link #lpMagazine() magazine} or whoever holds a shared magazine's lock. Plain fields, no atomics: this is
 *       the local free list, a LIFO stack so the segment freed last (hottest in cache) is handed out first.</li>
 *   <li>{@link #list}, {@link #prev}, {@link #next}: {@link ChunkList}'s links, written by it for the owner.</li>
 *   <li>{@link #remoteFrees}: any thread offers, only the owner drains. Releases that the owner does not make
 *       itself go here (protocol 1 (release from any thread)).</li>
 *   <li>the magazine: set when a magazine takes the chunk (new, or whole from the reuse pool) and cleared when it
 *       retires it, that is only while no buffer holds a segment. So whoever releases a buffer of the chunk reads
 *       the magazine that owns it now; it may find that magazine's owner changed (its thread ended), never the
 *       magazine.</li>
 * </ul>
 *
 * <h2>The counting invariant</h2>
 * {@code freeCount + |remoteFrees| + (segments held by live buffers) == segmentCount}, where {@code |remoteFrees|}
 * counts claimed queue slots. Hence the owner may retire the chunk exactly when {@code freeCount == segmentCount}:
 * no buffer holds a segment and the queue is empty, so no release can race with the retirement (protocol 3 (chunk
 * retirement)). The three methods that move segments ({@link #pushLocal}, {@link #releaseRemote},
 * {@link #drainRemote}, plus the pops) are the only writers of the counts; a push or offer that would pass
 * {@code segmentCount} is a double free and throws, and each asserts {@code freeCount + |remoteFrees| <=
 * segmentCount}.
 *
 * <h2>Segments' own buffer objects (thread magazines)</h2>
 * In a thread magazine each segment has its own buffer object, made on first use and kept in {@link #objects}
 * while the segment is free: allocating pops the segment and takes its object, already pointing at the memory;
 * releasing pushes the segment and leaves the object where it is (protocol 5 (buffer objects)); the owner's next
 * allocation may hand it out with another segment first ({@link ReleasedObjects}, {@link #handOut}). Invariants, for
 * every segment {@code s}:
 * <ul>
 *   <li>{@code objects[s]} is handed out only if {@code objects[s].memory() == this && objects[s].segment() == s}.
 *       Growth swaps memory between two buffer objects, so a segment's object can come to hold other memory. When
 *       both objects are segments' own and the growing thread owns both chunks, the two swap slots too
 *       ({@link #swapSlots}); otherwise the object that moved is left to the garbage collector and the segment gets a
 *       new one. The check is race-free: the object's memory fields were written before the memory it moved away
 *       from was freed, and the owner reads them after taking that free (program order, or the remote queue's
 *       release/acquire).</li>
 *   <li>{@code objectsThreadId} is the thread every object in {@link #objects} was made for, and only that thread
 *       hands them out: a chunk taken by another magazine drops them first ({@link #activate}). Stripes never use
 *       {@link #objects}: their callers bring their own thread's objects.</li>
 * </ul>
 *
 * <h2>Layout</h2>
 * What a releasing thread reads ({@link SizeClassChunkShared}) and what the owner writes on every allocation
 * ({@link #freeCount}) are {@link CacheLinePadding#BYTES} apart ({@link SizeClassChunkPad}): otherwise each
 * allocation by the owner invalidates the line every releasing thread must read.
 */
class SizeClassChunk extends SizeClassChunkPad {
    /** Smallest segment whose objects a retired chunk keeps (see {@link #onRetire}). */
    static final int MIN_SEGMENT_KEEPING_OBJECTS = 256;

    final int[] freeSegments;
    int freeCount;
    /** Per segment, its own buffer object, or null if it has none yet; only thread magazines fill it. */
    final MagByteBuf[] objects;
    /**
     * A thread magazine's allocations from this chunk while current, and the bytes they requested: owner only, on
     * the line the allocation writes anyway; the magazine adds them to its counts when the chunk stops being current
     * or at a decay tick ({@link RequestCounts}).
     */
    long allocations;
    long requestedBytes;
    /** The thread whose magazine made the objects in {@link #objects} (its magazine's owner id when activated). */
    private long objectsThreadId;
    /**
     * Owner only: set by a decay tick, cleared when the chunk is made current; a parked chunk that is entirely free
     * and still marked at a tick was not allocated from for a whole period (protocol 7 (decay)).
     */
    boolean decayMark;
    /** The owner's list (partial or full) that holds this chunk, or null: current, or in no magazine. */
    ChunkList list;
    /** The chunk below this one in its reuse pool's stack, guarded by the pool's lock; null outside the pool. */
    SizeClassChunk nextPooled;
    SizeClassChunk prev;
    SizeClassChunk next;

    SizeClassChunk(Slab slab, PoolContext context, Magazine magazine, int sizeClass) {
        super(slab, context, magazine, sizeClass);
        this.freeSegments = new int[segmentCount];
        this.objects = new MagByteBuf[segmentCount];
        this.objectsThreadId = magazine.lvOwnerThreadId();
        // Pushed in reverse so that the first allocations walk the slab upwards.
        for (int i = 0; i < segmentCount; i++) {
            freeSegments[i] = segmentCount - 1 - i;
        }
        this.freeCount = segmentCount;
    }

    /** Owner of a thread magazine: one allocation of {@code requestedBytes} from this chunk (waste statistics). */
    void countRequest(int requestedBytes) {
        allocations++;
        this.requestedBytes += requestedBytes;
    }

    /** Owner, cold: adds what this chunk counted while current to {@code requests}, and counts again from zero. */
    void moveCountsTo(RequestCounts requests) {
        requests.add(sizeClass, allocations, requestedBytes);
        allocations = 0;
        requestedBytes = 0;
    }

    /** Pops a free segment, or returns -1 when the local list is empty. Owner only; no atomics. */
    int allocateSegment() {
        int n = freeCount;
        if (n == 0) {
            return -1;
        }
        freeCount = n - 1;
        assert countsFit();
        return freeSegments[n - 1];
    }

    /**
     * Owner of a thread magazine only: pops a free segment and returns its buffer object, which already holds the
     * segment's memory (the caller resets capacity, indices and count); null when the local list is empty. A missing
     * or moved object is replaced by a new one with {@code home}, the calling magazine's.
     */
    MagByteBuf allocateBound(SegmentSlot home) {
        int n = freeCount;
        if (n == 0) {
            return null;
        }
        int segment = freeSegments[n - 1];
        MagByteBuf buf = objects[segment];
        if (buf == null || buf.memory() != this || buf.segment() != segment) {
            buf = newBoundObject(segment, home); // may throw OutOfMemoryError: the segment is still free
        }
        freeCount = n - 1;
        assert countsFit();
        return buf;
    }

    /**
     * Owner of a thread magazine only, with a segment free ({@code freeCount > 0}): pops it and binds {@code object},
     * one its owner released ({@link ReleasedObjects}), to it. The segment's own object stays in its slot.
     */
    MagByteBuf handOut(MagByteBuf object) {
        int segment = allocateSegment();
        assert segment >= 0 : "handOut with no free segment";
        if (object.segment() != segment || object.memory() != this) { // else it is the segment's own object already
            object.setMemory(this, segment, offsetOf(segment), segmentSize);
        }
        return object;
    }

    /** Cold: the segment's first object, or a replacement for one that moved away; debug mode keeps none. */
    private MagByteBuf newBoundObject(int segment, SegmentSlot home) {
        MagByteBuf buf = context.newBufferObject(home);
        buf.setMemory(this, segment, offsetOf(segment), segmentSize);
        if (keepsObjects()) {
            objects[segment] = buf;
        }
        return buf;
    }

    /** Whether a segment's object stays in its slot for the segment's next allocation (not in debug mode). */
    boolean keepsObjects() {
        return true;
    }

    /**
     * After {@code grown} and {@code fresh} swapped memory (a move): if both are segments' own objects and both chunks
     * are owned by the calling thread's magazine, each object takes the slot of the segment it now holds (so growth
     * makes no garbage) and this returns true. Both or neither: an object must stay with chunks of the thread that
     * hands it out.
     */
    static boolean swapSlots(MagByteBuf grown, MagByteBuf fresh) {
        if (!(grown.home() instanceof SegmentSlot) || !(fresh.home() instanceof SegmentSlot)
            || !isCallersSegment(grown) || !isCallersSegment(fresh)) {
            return false;
        }
        ((SizeClassChunk) grown.memory()).rebind(grown.segment(), fresh, grown);
        ((SizeClassChunk) fresh.memory()).rebind(fresh.segment(), grown, fresh);
        return true;
    }

    /**
     * After {@code fresh}, a segment's own object, lent its segment to {@code moved} (an object of another home) and
     * freed the memory it took in exchange: it takes its segment back as the slot's object, so that the segment's
     * next allocation makes no new object (a shrink of a large buffer into the size classes would otherwise leave
     * one to the garbage collector every time). The slot is handed out only once {@code moved} frees the segment;
     * {@code fresh} was a temporary no other code has seen, so no stale reference to it exists.
     */
    static void returnToSlot(MagByteBuf fresh, MagByteBuf moved) {
        if (fresh.home() instanceof SegmentSlot && isCallersSegment(moved)) {
            ((SizeClassChunk) moved.memory()).returnToSlot(moved.segment(), fresh);
        }
    }

    /**
     * Whether {@code buf} holds a segment of a chunk the calling thread's magazine owns. The segment is live, so the
     * chunk cannot be retired meanwhile: its magazine is fixed.
     */
    private static boolean isCallersSegment(MagByteBuf buf) {
        return buf.memory() instanceof SizeClassChunk
            && ((SizeClassChunk) buf.memory()).lpMagazine().lvOwnerThreadId() == Thread.currentThread().getId();
    }

    /** Owner only: {@code to} now holds the memory of {@code segment}, which {@code from} held: it takes the slot. */
    private void rebind(int segment, MagByteBuf from, MagByteBuf to) {
        if (objects[segment] == from) {
            objects[segment] = to;
        }
    }

    /**
     * Owner only: {@code object}, the slot's own object, holds {@code segment} again, so that
     * {@code objects[s].memory() == this && segment() == s} holds as for any free slot, without a new object.
     */
    private void returnToSlot(int segment, MagByteBuf object) {
        if (objects[segment] == object) {
            object.setMemory(this, segment, offsetOf(segment), segmentSize);
        }
    }

    /**
     * Whoever takes the chunk for {@code magazine} (which then owns it), before any allocation: the segments' objects
     * stay only if they were made for the same thread (thread ids are never reused); otherwise they are dropped, so
     * no object is handed out by a second thread.
     */
    void activate(Magazine magazine) {
        assert lpMagazine() == null && freeCount == segmentCount : "a chunk activated while in use";
        spMagazine(magazine);
        long ownerId = magazine.lvOwnerThreadId();
        if (ownerId != objectsThreadId) {
            dropObjects();
            objectsThreadId = ownerId;
        }
    }

    /**
     * Any thread, for an error's report: segments not free, as the counts read now say (plain reads of the owner's
     * count: a snapshot, off by the buffers allocated or released meanwhile).
     */
    @Override
    public long liveBufferBytes() {
        return Math.max(0, segmentCount - freeCount - remoteFrees.size()) * (long) segmentSize;
    }

    /**
     * Owner, when retiring the entirely free chunk: no buffer holds a segment, so no releaser reads the magazine
     * any more, and forgetting it lets an ended magazine be collected. The segments' objects stay with the chunk,
     * for its own thread taking it back ({@link #activate}), unless the segments are small: a buffer object is
     * about 100 bytes, so below {@link #MIN_SEGMENT_KEEPING_OBJECTS} bytes a pooled chunk's objects could outweigh
     * its memory.
     */
    void onRetire() {
        assert isEntirelyFree() && list == null : "a chunk retired while in use or parked";
        spMagazine(null);
        svRemotelyReleased(false);
        if (segmentSize < MIN_SEGMENT_KEEPING_OBJECTS) {
            dropObjects();
        }
    }

    private void dropObjects() {
        Arrays.fill(objects, null);
    }

    /**
     * Takes back {@code buf}'s segment, released on the thread with id {@code threadId} (protocol 1 (release from
     * any thread)): the owner thread pushes it onto the local list, with no atomics; every other release is the
     * magazine's to route, by its kind ({@link Magazine#releaseFromOtherThread}).
     */
    @Override
    protected void release(MagByteBuf buf, long threadId) {
        int segment = buf.segment();
        Magazine magazine = lpMagazine();
        if (magazine.lvOwnerThreadId() == threadId) {
            magazine.releaseOwned(this, segment, buf);
        } else {
            magazine.releaseFromOtherThread(buf, this, segment, threadId);
        }
    }

    /** Owner only: pushes onto the local list. Returns the new free count. */
    int pushLocal(int segment) {
        int n = freeCount;
        if (n == segmentCount) {
            throw doubleFree(segment);
        }
        freeSegments[n] = segment;
        freeCount = ++n;
        assert countsFit();
        return n;
    }

    /**
     * Any thread that is not the owner. One CAS inside the queue; never touches owner-only fields. It can check only
     * its own side of the counting invariant: the owner's {@code freeCount}, read from here, may be stale.
     */
    void releaseRemote(int segment) {
        Magazine owner = lpMagazine(); // fixed while the segment is live: read before it is published
        if (!remoteFrees.offer(segment)) {
            throw doubleFree(segment);
        }
        // After the publication, so that an owner that clears the mark before its look either sees the claim or
        // leaves the mark to this write (protocol 1a (foreign release marks)).
        owner.markForeignRelease(sizeClass);
        assert remoteFrees.size() <= segmentCount : "counting invariant broken: more queued than segments";
    }

    /**
     * Owner only: segments other threads have claimed a queue slot for that the owner has not drained, some maybe not
     * published yet (a drain then moves fewer).
     */
    int remoteClaims() {
        return remoteFrees.claimedCount();
    }

    /** Owner only: moves every segment released by other threads onto the local list; returns how many. */
    int drainRemote() {
        int moved = remoteFrees.drainTo(freeSegments, freeCount, segmentCount - freeCount);
        freeCount += moved;
        assert countsFit();
        return moved;
    }

    /**
     * Owner only, cold: like {@link #drainRemote()}, but also waits for producers that have claimed a slot and not
     * yet published their segment (a few instructions apart), so that every release that began before the call is
     * collected.
     */
    int drainRemoteWaitingForClaims() {
        int moved = drainRemote();
        while (!remoteFrees.isEmpty()) {
            Thread.onSpinWait();
            moved += drainRemote();
        }
        return moved;
    }

    boolean isEntirelyFree() {
        return freeCount == segmentCount;
    }

    /** Owner only: whether the chunk waits in a partial or full list of its magazine (else it is current or gone). */
    boolean isParked() {
        return list != null;
    }

    int offsetOf(int segment) {
        return segment * segmentSize;
    }

    /**
     * For assertions: the counting invariant as the owner can check it. The claimed queue slots only grow under
     * its feet, and each belongs to a segment no buffer holds, so {@code freeCount + |remoteFrees| <= segmentCount}
     * at all times. Throws itself, so the hot callers' assert stays a few bytes (their size decides inlining).
     */
    private boolean countsFit() {
        int queued = remoteFrees.size();
        if (freeCount < 0 || freeCount + queued > segmentCount) {
            throw new AssertionError("counting invariant broken: " + freeCount + " free + " + queued + " queued > "
                + segmentCount + " segments");
        }
        return true;
    }

    private IllegalStateException doubleFree(int segment) {
        return new IllegalStateException("magalloc: segment " + segment + " of a " + segmentSize
            + "-byte chunk released more often than allocated (double free through a stale buffer?)");
    }
}

/** The fields a releasing thread reads: fixed at creation, except the magazine and a stripe's parked mirror. */
abstract class SizeClassChunkShared extends Chunk {
    /** The parked count of a chunk not parked in a stripe: so far below zero that no queue size completes a chunk. */
    static final int NOT_PARKED = Integer.MIN_VALUE / 2;

    final int sizeClass;
    final int segmentSize;
    final int segmentCount;
    final MpscIntQueue remoteFrees;
    /** The owning magazine, or null in the reuse pool; plain, see "Who writes what". */
    private Magazine magazine;
    /**
     * A stripe's copy of {@code freeCount} for its releasers, who must not read the owner's line (protocol 2b
     * (parked chunks)). Written only by {@link Stripe}, the lock holder; read by remote releasers.
     */
    private volatile int parkedFreeCount = NOT_PARKED;
    /**
     * Set by the first release into a stripe's chunk from a thread other than the buffer's allocating thread,
     * cleared when the chunk is retired (protocol 2b (parked chunks)).
     */
    private volatile boolean remotelyReleased;

    SizeClassChunkShared(Slab slab, PoolContext context, Magazine magazine, int sizeClass) {
        super(slab, context);
        this.magazine = magazine;
        this.sizeClass = sizeClass;
        this.segmentSize = SizeClasses.sizeOf(sizeClass);
        this.segmentCount = slab.capacity / segmentSize;
        this.remoteFrees = new MpscIntQueue(segmentCount);
    }

    /**
     * Plain: written only while no buffer holds a segment, and a releaser reaches the chunk through a buffer it was
     * handed after the allocation that followed the write.
     */
    final Magazine lpMagazine() {
        return magazine;
    }

    final void spMagazine(Magazine owner) {
        magazine = owner;
    }

    final int lvParkedFreeCount() {
        return parkedFreeCount;
    }

    /** Volatile, not ordered: one side of a Dekker handshake (see {@link Stripe#publishParkedFreeCount}). */
    final void svParkedFreeCount(int count) {
        parkedFreeCount = count;
    }

    final boolean lvRemotelyReleased() {
        return remotelyReleased;
    }

    final void svRemotelyReleased(boolean released) {
        remotelyReleased = released;
    }
}

/** {@link CacheLinePadding#BYTES} between the shared fields and the owner's (see {@link SizeClassChunk}, "Layout"). */
abstract class SizeClassChunkPad extends SizeClassChunkShared {
    byte q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015;
    byte q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111, q112, q113, q114, q115;
    byte q200, q201, q202, q203, q204, q205, q206, q207, q208, q209, q210, q211, q212, q213, q214, q215;
    byte q300, q301, q302, q303, q304, q305, q306, q307, q308, q309, q310, q311, q312, q313, q314, q315;
    byte q400, q401, q402, q403, q404, q405, q406, q407, q408, q409, q410, q411, q412, q413, q414, q415;
    byte q500, q501, q502, q503, q504, q505, q506, q507, q508, q509, q510, q511, q512, q513, q514, q515;
    byte q600, q601, q602, q603, q604, q605, q606, q607, q608, q609, q610, q611, q612, q613, q614, q615;
    byte q700, q701, q702, q703, q704, q705, q706, q707, q708, q709, q710, q711, q712, q713, q714, q715;

    SizeClassChunkPad(Slab slab, PoolContext context, Magazine magazine, int sizeClass) {
        super(slab, context, magazine, sizeClass);
    }
}
