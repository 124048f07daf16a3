package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;

import java.lang.ref.WeakReference;
import java.util.function.Function;

/**
 * A thread's own magazine: an event loop's, or a thread's that opted in. Its thread is the owner: it allocates and
 * releases its own buffers with no lock and no atomics ({@link #allocate} is the fast path). Other threads' releases
 * come back through the chunks' remote queues, collected by the owner at its refills and decay ticks (on the
 * owner's event loop, if it runs one: protocol 7 (decay)). When the thread ends, an {@link EndedMagazine} takes the
 * magazine over (protocol 4 (ended threads)).
 *
 * <p>Nothing keeps the thread reachable ({@link #ownerThread} is weak), so a dead thread can be noticed and its
 * magazine ended by another thread ({@link ThreadMagazines#reapDeadThreadMagazines}).
 */
final class ThreadMagazine extends Magazine implements MagazineDecay.Target {
    /**
     * The segments in use at the owner's first release from which a magazine hands out released objects first
     * ({@link ObjectReuse#RELEASED_FIRST}): tens of thousands of buffer objects, more than a core's own caches hold.
     */
    static final long RELEASED_FIRST_FROM_SEGMENTS = 16_384;
    /** The owner's id, kept after the magazine ends (when {@link #lvOwnerThreadId()} no longer names it). */
    final long threadId;
    final WeakReference<Thread> ownerThread;
    /** The owner's buffer objects for its large and huge buffers (its size-classed ones use their segments'). */
    final BufferObjectCache objects;
    private final LargeChunks large;
    /** The owner's own released large runs, kept for its next allocation of the same length; none in debug mode. */
    private final ReleasedRuns releasedRuns;
    private final boolean keepsReleasedRuns;
    /** Gives back, on this thread's event loop, what the magazine holds beyond its live buffers. */
    private final MagazineDecay decay;
    /** What other threads ask of the owner, done at its next slow path ({@link #doRequestedWork}). */
    private final OwnerRequests ownerRequests = new OwnerRequests();
    /**
     * Owner only: whether the decay ticks run on this thread's slow paths (no executor runs them). Checked before the
     * decay is called there, so that an event loop's refill makes no call into it.
     */
    private boolean ticksOnSlowPaths;
    /** Set by a release that emptied a large chunk; the owner gives spare chunks back at its next large allocation. */
    private volatile boolean largeChunkEmptied;
    /**
     * The registry that ends this magazine when its thread's link is removed; set once, before the magazine is
     * published to its thread. Null for magazines that tests make outside any registry.
     */
    Registry registry;
    /** How the living owner gives back: at once. */
    private final GiveBack atOnce;
    /**
     * What its thread's slot holds: a weak link, so that a thread keeps nothing of a dropped allocator
     * ({@link ThreadMagazines}).
     */
    final WeakReference<ThreadMagazine> threadLink = new WeakReference<>(this);
    /**
     * This magazine's hand-over once the thread ended, else null. Written by {@link #end} before its volatile store
     * of {@link #NO_OWNER_THREAD}, read only after a volatile read of that value: so a reader sees it set.
     */
    private EndedMagazine ended;

    /** The home of every buffer object this magazine's chunks make: which objects are this magazine's own. */
    private final SegmentSlot slotHome = new SegmentSlot();
    /** The owner's objects released last, handed out first; none in debug mode, which never reuses objects. */
    final ReleasedObjects released;
    /**
     * Owner only: which object an allocation hands out. The first release decides ({@link #decideObjectReuse}): with
     * few live buffers the segments' own objects all stay in the core's cache, and binding a released object to
     * another segment only costs; with {@link #releasedFirstFromSegments} in use, handing out the object just released
     * makes each object, once made, follow the releases, so a program that releases in a repeated order (a ring of
     * connections, a benchmark's fixed permutation) walks its objects in the order they were made instead of at
     * random. Decided at the first release because that order is set from the start: turned on later, the objects
     * are mixed already; and because compiled code that has run both ways stays larger (too large to inline into its
     * caller), so a magazine that hands out segments' own objects must never have done otherwise. Fewer than half
     * that in use at a decay tick turns it off for good.
     */
    private ObjectReuse objectReuse = ObjectReuse.UNDECIDED;
    /** Owner only: see {@link #objectReuse}; tests lower it. */
    private long releasedFirstFromSegments = RELEASED_FIRST_FROM_SEGMENTS;

    /**
     * A magazine owned by {@code owner} (the calling thread, except in tests, where the caller plays it), with decay
     * ticks on the owner's event loop if it runs one.
     */
    ThreadMagazine(ChunkSupply supply, Thread owner) {
        this(supply, owner, magazine -> owner == Thread.currentThread()
            ? MagazineDecay.forCurrentThread(magazine, supply.context.settings.decayMillis()) : MagazineDecay.NONE);
    }

    /** A magazine whose decay {@code decayOf} makes (stress tests stand in for the event loop). */
    ThreadMagazine(ChunkSupply supply, Thread owner, Function<ThreadMagazine, MagazineDecay> decayOf) {
        super(supply, owner.getId());
        this.threadId = owner.getId();
        this.ownerThread = new WeakReference<>(owner);
        this.objects = new BufferObjectCache(supply.context, threadId);
        this.large = new LargeChunks(supply, this);
        this.releasedRuns = new ReleasedRuns(2L * supply.context.settings.maxPooledSize());
        this.keepsReleasedRuns = !supply.context.isDebug();
        this.released = new ReleasedObjects(supply.context.isDebug() ? 0 : ReleasedObjects.CAPACITY);
        this.atOnce = new GiveBack.AtOnce(supply);
        this.decay = decayOf.apply(this);
        this.ticksOnSlowPaths = decay.ticksOnSlowPaths();
    }

    // ------------------------------------------------------------------ owner

    /**
     * The fast path: a buffer on a segment of {@code sizeClass}, with the segment's own object, already pointing at
     * its memory. Plain reads and writes only; everything else is in {@link #refillCurrent}. A magazine that hands out
     * released objects first ({@link ObjectReuse#RELEASED_FIRST}) leaves at once for {@link #allocateReleasedFirst},
     * which other magazines never run, so that their compiled fast path and refill stay as small as without it.
     */
    MagByteBuf allocate(int sizeClass, int initialCapacity, int maxCapacity) {
        if (objectReuse == ObjectReuse.RELEASED_FIRST) {
            return allocateReleasedFirst(sizeClass, initialCapacity, maxCapacity);
        }
        SizeClassChunk chunk = current(sizeClass);
        MagByteBuf buf;
        if (chunk == null || (buf = chunk.allocateBound(slotHome)) == null) {
            chunk = refillCurrent(sizeClass);
            buf = chunk.allocateBound(slotHome);
        }
        buf.reuse(initialCapacity, maxCapacity);
        chunk.countRequest(initialCapacity);
        return buf;
    }

    /**
     * {@link #allocate} of a magazine that hands out released objects first: the object the owner released last,
     * bound to the popped segment, else the segment's own. Refills first, as a refill may make current the chunk of
     * a kept object's old segment, whose slot still holds that object.
     */
    private MagByteBuf allocateReleasedFirst(int sizeClass, int initialCapacity, int maxCapacity) {
        SizeClassChunk chunk = current(sizeClass);
        if (chunk == null || chunk.freeCount == 0) {
            chunk = refillCurrent(sizeClass);
        }
        MagByteBuf buf = released.pop();
        buf = buf != null ? chunk.handOut(buf) : chunk.allocateBound(slotHome);
        buf.reuse(initialCapacity, maxCapacity);
        chunk.countRequest(initialCapacity);
        return buf;
    }

    /**
     * New memory for a buffer that moves (growth, a shrink): like {@link #allocate}, but a move is no request of the
     * user's, so the waste statistics do not count it.
     */
    MagByteBuf allocateForMove(int sizeClass, int capacity, int maxCapacity) {
        released.clear(); // a move takes a slot object: none may wait here too (ReleasedObjects' invariant)
        SizeClassChunk chunk = current(sizeClass);
        MagByteBuf buf = chunk == null ? null : chunk.allocateBound(slotHome);
        if (buf == null) {
            buf = refillCurrent(sizeClass).allocateBound(slotHome);
        }
        buf.reuse(capacity, maxCapacity);
        return buf;
    }

    /**
     * Cold: a trim asked for and a decay tick due are done first, then the current chunk is replaced; may take a slab
     * from the system.
     */
    private SizeClassChunk refillCurrent(int sizeClass) {
        doRequestedWork();
        if (ticksOnSlowPaths) {
            decay.onSlowPath();
        }
        return refill(sizeClass, null);
    }

    /** A buffer above the size classes: a run of pages in a large chunk (protocol 6 (large chunks)). */
    MagByteBuf allocateLarge(int initialCapacity, int maxCapacity) {
        doRequestedWork();
        if (ticksOnSlowPaths) {
            decay.onSlowPath();
        }
        releaseLargeSparesIfEmptied();
        MagByteBuf buf = objects.take();
        int runBytes = large.noteRequest(initialCapacity);
        if (!releasedRuns.take(buf, runBytes, initialCapacity, maxCapacity)) {
            large.allocate(buf, runBytes, initialCapacity, maxCapacity, null);
        }
        return buf;
    }

    /**
     * Owner, on its event loop: the work other threads asked for (a trim, a give-back on a shortage, spares of a large
     * chunk a release emptied), run as a task of the loop when they asked it there.
     */
    @Override
    public void doOwnerWork() {
        if (isOwnedByCurrentThread()) {
            doRequestedWork();
            releaseLargeSparesIfEmptied();
        }
    }

    /**
     * Owner: if a release emptied a large chunk since the last look, gives back the spares beyond the allowance, kept
     * runs first: a chunk that only kept runs hold is empty too.
     */
    @Override
    public void releaseLargeSparesIfEmptied() {
        if (lvLargeChunkEmptied()) {
            // Cleared before the chunks are looked at, so an emptying that this pass misses sets it again.
            svLargeChunkEmptied(false);
            releasedRuns.giveBackAll();
            large.releaseSpares();
        }
    }

    /**
     * Owner: one decay tick (protocol 7 (decay)): a trim asked for, spares of emptied large chunks, then every chunk
     * that stayed unused for a whole period goes back. Returns whether the magazine still holds a chunk.
     */
    @Override
    public boolean decayTick() {
        doRequestedWork();
        releasedRuns.giveBackAll();
        releaseLargeSparesIfEmptied();
        boolean holdsLarge = large.decay();
        boolean holds = decaySizeClassedChunks() || holdsLarge;
        stopReleasedFirstIfFewInUse();
        return holds;
    }

    /**
     * Owner, at a decay tick: hands out segments' own objects for good if fewer than half of
     * {@link #releasedFirstFromSegments} segments are in use, and forgets the objects kept (each stays in its slot),
     * as the hot path then hands out only slot objects. Half, so that a level near the bound keeps its choice.
     */
    private void stopReleasedFirstIfFewInUse() {
        if (objectReuse == ObjectReuse.RELEASED_FIRST && segmentsInUse() < releasedFirstFromSegments / 2) {
            objectReuse = ObjectReuse.SEGMENTS_OWN;
            released.clear();
        }
    }

    /** Tests: the segments in use at the first release from which objects are handed out released first. */
    void releasedFirstFrom(long segmentsInUse) {
        releasedFirstFromSegments = segmentsInUse;
    }

    /** Owner: which object its allocations hand out now. */
    ObjectReuse objectReuse() {
        return objectReuse;
    }

    /**
     * At once while the owner lives (it holds no lock); once the magazine ended, after the hand-over's unlock, whose
     * holder owns the lists ({@link GivenBackAfterUnlock}).
     */
    @Override
    GiveBack giveBack() {
        EndedMagazine handover = ended;
        return handover == null ? atOnce : handover.givenBackAfterUnlock;
    }

    /** The owner takes its own new slabs: nobody waits for it. */
    @Override
    boolean takesNewSlabs() {
        return true;
    }

    @Override
    boolean isThreadMagazine() {
        return true;
    }

    @Override
    boolean marksUnusedPeriods() {
        return decay != MagazineDecay.NONE && ended == null; // an ended magazine is read under its hand-over's lock
    }

    /** Starts the decay ticks if they had stopped: the magazine holds a chunk again. */
    @Override
    void onChunkTaken() {
        decay.onChunkTaken();
    }

    /** True on the owner thread while the magazine has not ended (ids are never reused). */
    @Override
    public boolean isOwnedByCurrentThread() {
        return lvOwnerThreadId() == Thread.currentThread().getId();
    }

    /** Owner: the cold work other threads asked for, if any; one volatile read when there is none. */
    private void doRequestedWork() {
        if (ownerRequests.lvAny()) {
            doRequestedWorkNow();
        }
    }

    /**
     * Cold. Clears the request before it looks at the reasons, so that a reason written after the look sets it again.
     * A trim or a give-back on a shortage: unused large chunks and free chunks go back, and the shortage's round is
     * answered. An executor that refused: the owner takes the ticks over on its slow paths.
     */
    private void doRequestedWorkNow() {
        ownerRequests.clear();
        GiveBackRound round = ownerRequests.takeGiveBackRound();
        if (ownerRequests.takeTrim() | round != null) {
            giveBackFree();
        }
        if (round != null) {
            round.answered();
        }
        if (!ticksOnSlowPaths && decay.ticksOnSlowPaths()) {
            ticksOnSlowPaths = true;
        }
    }

    /** Owner: gives back every unused large chunk and every entirely free chunk, kept runs first. */
    private void giveBackFree() {
        releasedRuns.giveBackAll();
        large.detachUnused();
        retireFreeChunks();
    }

    /**
     * Owner, making room on a shortage (protocol 9 (making room)), maybe in the middle of its own refill or large
     * allocation, whose next steps read the lists afresh: gives back what it holds free now, and answers a round
     * that asked it.
     */
    void giveBackOnShortage() {
        GiveBackRound round = ownerRequests.takeGiveBackRound();
        giveBackFree();
        if (round != null) {
            round.answered();
        }
    }

    // ------------------------------------------------------------------ other threads

    /**
     * Any thread making room on a shortage: asks the owner to give back what it holds free and to answer
     * {@code round}. The owner does it at its next refill or large allocation, and, if it runs an event loop that
     * takes tasks, in a task of the loop now. Returns false, asking nothing, if the magazine has ended (an ended
     * magazine holds nothing free).
     */
    boolean askToGiveBack(GiveBackRound round) {
        if (lvOwnerThreadId() == NO_OWNER_THREAD) {
            return false;
        }
        round.asked(); // before the owner can see the request, so its answer never comes first
        ownerRequests.requestGiveBack(round);
        decay.askLoopForOwnerWork();
        if (lvOwnerThreadId() == NO_OWNER_THREAD) {
            answerIfAsked(); // ended meanwhile: the end may have looked before the request was there
        }
        return true;
    }

    /** Any thread, making room on a shortage: detaches every unused large chunk, whoever the owner is. */
    void reclaimUnusedLargeChunks() {
        large.reclaimUnused();
    }

    /** The magazine ended, or will never answer otherwise: answers the round that asked it, if any. */
    void answerIfAsked() {
        GiveBackRound round = ownerRequests.takeGiveBackRound();
        if (round != null) {
            round.answered();
        }
    }

    /**
     * Another thread's release: into the chunk's remote queue, one CAS; or, once the thread has ended, under the
     * hand-over's lock. A release that read the owner id before the end queues its segment after the end's drain
     * may have run: it looks again and, if the magazine ended meanwhile, collects the queues itself.
     */
    @Override
    void releaseFromOtherThread(MagByteBuf buf, SizeClassChunk chunk, int segment, long threadId) {
        if (lvOwnerThreadId() == NO_OWNER_THREAD) {
            lpEnded().release(chunk, segment);
            return;
        }
        chunk.releaseRemote(segment);
        // From here on only the magazine may be touched: once the segment is published the chunk may be drained,
        // retired and reused. Magazines are never reused.
        if (lvOwnerThreadId() == NO_OWNER_THREAD) {
            lpEnded().sweepRemoteReleases();
        }
    }

    /**
     * Written only when not set, so a stream of releases does not keep writing the line other releasers read; a
     * releaser on another thread that sets it asks the owner's event loop to collect now rather than at the next large
     * allocation or tick (the owner releasing itself looks then anyway). A releaser that finds it set needs no request
     * of its own: the owner has not cleared it yet, and clears it before it looks at the chunks, so that look sees
     * this emptying (protocol 7 (decay)).
     */
    @Override
    void onLargeChunkEmptied(LargeChunk chunk) {
        if (!lvLargeChunkEmptied()) {
            svLargeChunkEmptied(true);
            if (!isOwnedByCurrentThread()) {
                decay.askLoopForOwnerWork(); // the owner itself looks at its next large allocation or tick
            }
        }
    }

    /** The owner's kept runs; tests read them. */
    ReleasedRuns releasedRuns() {
        return releasedRuns;
    }

    /**
     * Owner: keeps its own released run for its next allocation of that length, if there is room and the length is
     * the one it asked for last: a thread that allocates and releases one length in turn (a read buffer, a record)
     * reuses the run at once, while lengths that vary keep nothing that no request would take.
     */
    @Override
    boolean keepReleasedRun(LargeChunk chunk, int offset, int runBytes) {
        return keepsReleasedRuns && runBytes == large.lastRunBytes() && releasedRuns.keep(chunk, offset, runBytes);
    }

    /**
     * Any thread: the owner gives back its empty chunks at its next refill or large allocation; asked on the owner
     * thread, at once, as {@code trim()} is called from outside the allocator, where the owner-only lists are the
     * caller's to change (a trim run on each event loop then leaves nothing for later).
     */
    void requestTrim() {
        ownerRequests.requestTrim();
        if (isOwnedByCurrentThread()) {
            doRequestedWorkNow();
        }
    }

    /** Any thread, after writing the reason: the owner looks at the reasons at its next refill or large allocation. */
    @Override
    public void requestOwnerWork() {
        ownerRequests.requestLook();
    }

    // ------------------------------------------------------------------ the end

    /**
     * The owner thread will never use this magazine again (it exits, detaches, or died and is being reaped): an
     * {@link EndedMagazine} takes it over. Runs once ({@link ThreadMagazines} sees to it), on the owner or, after
     * its death, on the reaper (the thread's writes happen-before {@code isAlive()} returned false).
     */
    void end() {
        released.clear();
        new EndedMagazine(this).takeOver();
        answerIfAsked(); // the owner will never answer; the hand-over retired what was free
    }

    /** The hand-over, holding its lock: from now on releasers go to it. The volatile store publishes the field. */
    void publishEnded(EndedMagazine handover) {
        ended = handover;
        svOwnerThreadId(NO_OWNER_THREAD);
    }

    /** Plain: called only after {@link #lvOwnerThreadId()} returned {@link #NO_OWNER_THREAD} (see {@link #ended}). */
    private EndedMagazine lpEnded() {
        return ended;
    }

    /** Lock holder of the hand-over: gives up the thread's objects and every large chunk. */
    void releaseThreadResources() {
        objects.close();
        releasedRuns.giveBackAll();
        large.detachAll();
    }

    /**
     * Owner: the segment goes back; while allocations hand out released objects first, the object is kept for the
     * next one if it is this magazine's own (another thread's object, come here by growth, must never be handed out
     * by this thread). Kept first, so that a retirement the release causes forgets it ({@link #onRetiring}).
     */
    @Override
    void releaseOwned(SizeClassChunk chunk, int segment, MagByteBuf buf) {
        if (objectReuse != ObjectReuse.SEGMENTS_OWN) {
            keepReleased(buf);
        }
        releaseLocal(chunk, segment);
    }

    /** Owner, while objects may be handed out released first: the first release decides, then keeps its own. */
    private void keepReleased(MagByteBuf buf) {
        if (objectReuse == ObjectReuse.UNDECIDED) {
            decideObjectReuse();
        }
        if (objectReuse == ObjectReuse.RELEASED_FIRST && buf.home() == slotHome) {
            released.push(buf);
        }
    }

    /** Owner, cold, at its first release: see {@link #objectReuse}. */
    private void decideObjectReuse() {
        objectReuse = segmentsInUse() >= releasedFirstFromSegments ? ObjectReuse.RELEASED_FIRST
            : ObjectReuse.SEGMENTS_OWN;
    }

    /** Owner, or the hand-over of an ended magazine: a kept object must not hold a chunk that leaves, nor its slab. */
    @Override
    void onRetiring(SizeClassChunk chunk) {
        released.clear();
        if (lvOwnerThreadId() == NO_OWNER_THREAD) {
            supply.context.metrics.endedChunkRetired(chunk.slab.size);
        }
    }

    boolean lvLargeChunkEmptied() {
        return largeChunkEmptied;
    }

    /**
     * Volatile on both sides: the owner's clearing store comes before its look at the chunks (a later emptying is
     * then seen by the next look), a releaser's setting store after its unlock of the emptied chunk.
     */
    private void svLargeChunkEmptied(boolean emptied) {
        largeChunkEmptied = emptied;
    }

    /**
     * Who links magazines to their threads ({@link ThreadMagazines}): it ends a magazine when its thread's link is
     * removed.
     */
    interface Registry {
        /** Ends {@code magazine} if this call is the one that takes it out of the live set; returns whether it was. */
        boolean end(ThreadMagazine magazine);
    }
}
