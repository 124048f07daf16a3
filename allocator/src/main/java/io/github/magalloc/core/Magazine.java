package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;


/**
 * A set of size-classed chunks and the owner of their free lists: per size class one current chunk that
 * allocations pop from, partial chunks (with free segments, as far as the owner knows) and full ones. The kinds
 * differ in who the owner is and how other threads' releases come back, and are types of their own:
 * <ul>
 *   <li>{@link ThreadMagazine}: an event loop's (or opted-in thread's) own; its thread is the owner and touches the
 *       lists with no atomics; when the thread ends, an {@link EndedMagazine} takes it over;</li>
 *   <li>{@link Stripe}: shared by plain threads; whoever holds its lock is the owner.</li>
 * </ul>
 * This class keeps what they share: the chunks' places and their moves, refill, retirement and trim. Everything
 * here is for the owner only, except {@link #lvOwnerThreadId()}.
 *
 * <h2>Places of a chunk, and the one home of their moves</h2>
 * A chunk of this magazine is current, or parked in {@code partial} or {@code full}, or in transit on the owner's
 * stack (a few lines, never across a release). Every move goes through {@link #makeCurrent}, {@link #park},
 * {@link #moveToPartial} or {@link #retire}, which keep:
 * <pre>
 *   current[c] == chunk         =>  chunk.list == null
 *   chunk.list == partial(c)    =>  chunk.freeCount > 0          (refill makes a partial chunk current unseen)
 *   chunk retired               <=> chunk.freeCount == segmentCount, not current, in no list, magazine == null
 * </pre>
 * and tell the kind through {@link #onPlaceChanged} and {@link #onParkedFreeCountRose}, the hooks a stripe keeps its
 * releasers' copy of the count with (protocol 2b (parked chunks)).
 *
 * <p>Layout: {@link CacheLinePadding} in front, then the owner id, which every release reads, then
 * {@link MagazineOwnerIdPad}, then the owner's fields: neighbouring objects (a stripes array, another magazine) and the
 * owner's writes must not share a cache line with what other threads read on every release.
 */
abstract class Magazine extends MagazineOwnerIdPad {
    final ChunkSupply supply;
    private final SizeClassChunk[] current = new SizeClassChunk[SizeClasses.COUNT];
    /** Non-current chunks: partial (with free segments, as far as the owner knows) and full. */
    private final ParkedChunks parked = new ParkedChunks();
    /*
     * Per class, the parked chunk that a release emptied in the period it served, kept for the class's next refill
     * instead of retired (only where ticks mark the chunks: a tick retires it once it stays unused for a whole
     * period). Without it, a class whose level swings by a chunk retires a chunk and takes one from the pool at every
     * swing. At most one per class, as mimalloc keeps the last page of a size class it would retire:
     *   keptEmpty[c] != null  =>  keptEmpty[c].list == partial(c),  keptEmpty[c] entirely free
     * (nothing allocates from a parked chunk, and a release needs a live buffer, so it stays entirely free until
     * makeCurrent or retire clears the slot).
     */
    private final SizeClassChunk[] keptEmpty = new SizeClassChunk[SizeClasses.COUNT];
    /** Allocations and bytes requested per size class (waste statistics); the owner counts. */
    final RequestCounts requests = new RequestCounts();

    Magazine(ChunkSupply supply, long ownerThreadId) {
        super(ownerThreadId);
        this.supply = supply;
    }

    // ------------------------------------------------------------------ what the kinds decide

    /**
     * Whether the owner takes a new slab from the system itself when a refill finds none (a thread magazine), or the
     * caller does with no lock held and brings it as a spare (a stripe: the JDK may collect garbage and sleep before
     * it gives up direct memory, and the threads waiting for the lock must not wait for that too).
     */
    abstract boolean takesNewSlabs();

    /** Whether this is a thread's own magazine (else a stripe); the flight recorder's events say which. */
    abstract boolean isThreadMagazine();

    /**
     * Whether decay ticks run for this magazine (protocol 7 (decay)), so that its chunks carry the mark of a whole
     * period without an allocation: a thread magazine whose period is not 0, until it ends. A stripe has no ticks.
     */
    abstract boolean marksUnusedPeriods();

    /**
     * A release of {@code buf}'s segment of {@code chunk} on thread {@code threadId}, which does not own this
     * magazine (protocol 1 (release from any thread)).
     */
    abstract void releaseFromOtherThread(MagByteBuf buf, SizeClassChunk chunk, int segment, long threadId);

    /** Any thread, holding no lock: a release emptied {@code chunk}, of this magazine (protocol 6 (large chunks)). */
    abstract void onLargeChunkEmptied(LargeChunk chunk);

    /**
     * Owner: its own release of a large run, which this magazine may keep for its next allocation of the same length
     * ({@link ReleasedRuns}); returns whether it did (else the run goes back to its chunk). Only thread magazines keep.
     */
    boolean keepReleasedRun(LargeChunk chunk, int offset, int runBytes) {
        return false;
    }

    /** Owner: {@code chunk} was parked, unparked, or moved between the lists. */
    void onPlaceChanged(SizeClassChunk chunk) {
    }

    /** Owner: the free count of the parked {@code chunk} rose; called before it is retired or moved. */
    void onParkedFreeCountRose(SizeClassChunk chunk) {
    }

    /** Owner, cold: a chunk (size-classed or large) came into this magazine from the reuse pool or the system. */
    void onChunkTaken() {
    }

    // ------------------------------------------------------------------ owner release

    /**
     * The owner thread's release of {@code buf}, whose memory is {@code segment} of {@code chunk}
     * ({@link SizeClassChunk#release}): the segment goes back ({@link #releaseLocal}); a thread magazine also keeps
     * the object for its next allocation.
     */
    void releaseOwned(SizeClassChunk chunk, int segment, MagByteBuf buf) {
        releaseLocal(chunk, segment);
    }

    /**
     * Owner release of a segment. Work is needed only at the edges (the first free segment of a parked chunk, the
     * last one) and, in a stripe, for every count of a chunk another thread has released into (its mark, protocol
     * 2b (parked chunks)); a thread magazine's chunks are never marked.
     */
    final void releaseLocal(SizeClassChunk chunk, int segment) {
        int free = chunk.pushLocal(segment);
        if (free == 1 || free == chunk.segmentCount || chunk.lvRemotelyReleased()) {
            onFreeCountEdge(chunk);
        }
    }

    /**
     * Cold: see {@link #releaseLocal}; nothing to do for a current chunk. Kept this small so that it inlines: a
     * current chunk whose only buffer comes back reaches it at every release.
     */
    private void onFreeCountEdge(SizeClassChunk chunk) {
        if (chunk.isParked()) {
            onParkedChunkReleased(chunk);
        }
    }

    /**
     * Owner, cold: its release raised a parked chunk's free count. A chunk this release empties may be kept for its
     * class's next refill ({@link #keptEmpty}); only here: a trim, a drain and a magazine's end give every entirely
     * free chunk back ({@link #onParkedChunkFreed}).
     */
    private void onParkedChunkReleased(SizeClassChunk chunk) {
        if (chunk.isEntirelyFree() && keepsEmptied(chunk)) {
            keepForNextRefill(chunk);
        } else {
            onParkedChunkFreed(chunk);
        }
    }

    /**
     * Owner, cold: a parked chunk's free count rose: the kind hears of it, then the chunk is retired if entirely
     * free, or moved from the full list to the partial one if it has a free segment.
     */
    final void onParkedChunkFreed(SizeClassChunk chunk) {
        onParkedFreeCountRose(chunk);
        if (chunk.isEntirelyFree()) {
            unpark(chunk);
            retire(chunk);
        } else if (chunk.freeCount > 0 && parked.isInFullList(chunk)) {
            moveToPartial(chunk);
        }
    }

    /** Owner: the entirely free parked {@code chunk} waits in its partial list for the next refill of its class. */
    private void keepForNextRefill(SizeClassChunk chunk) {
        onParkedFreeCountRose(chunk);
        keptEmpty[chunk.sizeClass] = chunk;
        if (parked.isInFullList(chunk)) {
            moveToPartial(chunk);
        }
    }

    /**
     * Whether the emptied parked {@code chunk} stays for the next refill ({@link #keptEmpty}): it served since the last
     * tick, ticks run to retire it, and its class keeps no other.
     */
    private boolean keepsEmptied(SizeClassChunk chunk) {
        return !chunk.decayMark && keptEmpty[chunk.sizeClass] == null && marksUnusedPeriods();
    }

    // ------------------------------------------------------------------ places

    final SizeClassChunk current(int sizeClass) {
        return current[sizeClass];
    }

    /**
     * Makes {@code next} (in no list, with a free segment) the current chunk of its class and parks the one it
     * replaces. Called only once the replacement exists, so an {@code OutOfMemoryError} while getting it leaves the
     * magazine as it was.
     */
    final SizeClassChunk makeCurrent(SizeClassChunk next) {
        assert !next.isParked() && next.freeCount > 0 && next.lpMagazine() == this
            : "only an unparked chunk of this magazine with a free segment can be current";
        int sizeClass = next.sizeClass;
        SizeClassChunk replaced = current[sizeClass];
        if (keptEmpty[sizeClass] == next) {
            keptEmpty[sizeClass] = null; // in use again
        }
        current[sizeClass] = next;
        next.decayMark = false;
        onPlaceChanged(next);
        if (replaced != null) {
            replaced.moveCountsTo(requests);
            park(replaced);
        }
        return next;
    }

    /**
     * Parks a chunk that is neither current nor in a list: partial if it has a free segment, else full. A full chunk
     * whose queue holds claims (a release whose releaser read the mark before the owner's last clear) marks its class
     * here, so that the full list takes no claim unmarked (protocol 1a (foreign release marks)).
     */
    final void park(SizeClassChunk chunk) {
        assert current[chunk.sizeClass] != chunk : "a current chunk parked";
        if (chunk.freeCount > 0) {
            parked.partialOf(chunk.sizeClass).add(chunk);
        } else {
            parked.fullOf(chunk.sizeClass).add(chunk);
            if (chunk.remoteClaims() > 0) {
                markForeignRelease(chunk.sizeClass);
            }
        }
        onPlaceChanged(chunk);
    }

    /** Takes a parked chunk out of its list; the caller makes it current or retires it. */
    private void unpark(SizeClassChunk chunk) {
        chunk.list.remove(chunk);
        onPlaceChanged(chunk);
    }

    private void moveToPartial(SizeClassChunk chunk) {
        assert chunk.freeCount > 0 : "a chunk with no free segment moved to the partial list";
        chunk.list.remove(chunk);
        parked.partialOf(chunk.sizeClass).add(chunk);
        onPlaceChanged(chunk);
    }

    /** Gives an entirely free chunk, neither current nor parked, back to the pool (protocol 3 (chunk retirement)). */
    final void retire(SizeClassChunk chunk) {
        assert chunk.isEntirelyFree() && !chunk.isParked() && current[chunk.sizeClass] != chunk
            && chunk.lpMagazine() == this : "retired a chunk that is in use, placed, or not this magazine's";
        if (keptEmpty[chunk.sizeClass] == chunk) {
            keptEmpty[chunk.sizeClass] = null;
        }
        onRetiring(chunk);
        giveBack().chunk(chunk);
    }

    /** How this magazine's owner gives back what it retires: at once, or after its lock's unlock. */
    abstract GiveBack giveBack();

    /** Owner: {@code chunk} leaves this magazine for good (a thread's ended magazine counts down what it holds). */
    void onRetiring(SizeClassChunk chunk) {
    }

    // ------------------------------------------------------------------ refill

    /**
     * The current chunk of {@code sizeClass} is exhausted (or missing): collect its foreign releases, else switch to
     * the partial chunk that has waited longest (it has gathered the most free segments), else, if a foreign release
     * marked the class, look through the full chunks for it, else take a chunk or slab from the reuse pool, else use
     * {@code spare} (a slab the caller took from the system), else, if this kind {@link #takesNewSlabs}, take a new
     * slab here. A spare that is not needed goes to the reuse pool. Returns the chunk, now current, or null only when
     * there is no spare and no new slab may be taken.
     */
    final SizeClassChunk refill(int sizeClass, Slab spare) {
        SizeClassChunk exhausted = current[sizeClass];
        if (exhausted != null && exhausted.drainRemote() > 0) {
            giveBackUnused(spare);
            return exhausted;
        }
        SizeClassChunk next = takeFirstPartial(sizeClass);
        if (next == null) {
            next = collectForeignReleases(sizeClass);
        }
        if (next == null) {
            next = takePooledChunk(sizeClass);
        }
        if (next != null) {
            giveBackUnused(spare);
            return makeCurrent(next);
        }
        if (spare == null) {
            if (!takesNewSlabs()) {
                return null;
            }
            spare = supply.allocateSlab(nextChunkSize(sizeClass)); // may throw OutOfMemoryError: nothing changed yet
        }
        return makeCurrent(newChunk(sizeClass, spare));
    }

    /**
     * Cold: a chunk of {@code sizeClass} from the reuse pool, now this magazine's: an empty chunk of the class as it
     * is, else a new chunk on a pooled slab; null if the pool has neither.
     */
    private SizeClassChunk takePooledChunk(int sizeClass) {
        SizeClassChunk chunk = supply.pollChunk(sizeClass);
        if (chunk == null) {
            Slab slab = supply.pollSlabFor(sizeClass);
            return slab == null ? null : newChunk(sizeClass, slab);
        }
        chunk.activate(this);
        onChunkTaken();
        supply.chunkActivated(chunk, isThreadMagazine(), true);
        return chunk;
    }

    /** Cold: a new chunk of {@code sizeClass} on {@code slab}, this magazine's. */
    private SizeClassChunk newChunk(int sizeClass, Slab slab) {
        SizeClassChunk chunk = supply.context.isDebug() ? new DebugSizeClassChunk(slab, supply.context, this, sizeClass)
            : new SizeClassChunk(slab, supply.context, this, sizeClass);
        chunk.linkToSlab();
        onChunkTaken();
        supply.chunkActivated(chunk, isThreadMagazine(), false);
        return chunk;
    }

    private void giveBackUnused(Slab spare) {
        if (spare != null) {
            giveBack().spare(spare);
        }
    }

    /** Slab size of the next chunk of the class: small for the magazine's first one, so rare classes cost little. */
    final int nextChunkSize(int sizeClass) {
        return chunkCount(sizeClass) == 0 ? SizeClasses.firstChunkSizeOf(sizeClass)
            : SizeClasses.chunkSizeOf(sizeClass);
    }

    /**
     * Drains every full chunk of the class: those that received foreign releases become partial, entirely free
     * ones beyond the first are retired. Runs only when no partial chunk is left and a release from another thread
     * marked the class since the last look (protocol 1a (foreign release marks)): a thread whose buffers all come
     * back to it never looks through its full chunks. Returns a chunk, taken out of its list, or null.
     */
    private SizeClassChunk collectForeignReleases(int sizeClass) {
        if (!takeForeignReleaseMark(sizeClass)) {
            return null; // no claim waits in a full chunk of the class, or its releaser has yet to mark
        }
        SizeClassChunk empty = null;
        for (SizeClassChunk chunk = parked.fullOf(sizeClass).first(), following; chunk != null; chunk = following) {
            following = chunk.next;
            int claimed = chunk.remoteClaims();
            if (claimed == 0) {
                continue;
            }
            int moved = chunk.drainRemote();
            if (moved < claimed) {
                markForeignRelease(sizeClass); // a releaser claimed and has not published yet: the next refill looks
            }
            if (moved == 0) {
                continue;
            }
            onParkedFreeCountRose(chunk);
            if (!chunk.isEntirelyFree()) {
                moveToPartial(chunk);
                continue;
            }
            unpark(chunk);
            if (empty == null) {
                empty = chunk;
            } else {
                retire(chunk);
            }
        }
        SizeClassChunk next = takeFirstPartial(sizeClass);
        if (next == null) {
            return empty;
        }
        if (empty != null) {
            park(empty); // partial, after the chunks that are in use: those fill up first
        }
        return next;
    }

    /** The partial chunk of the class that has waited longest, taken out of its list, or null. */
    private SizeClassChunk takeFirstPartial(int sizeClass) {
        SizeClassChunk chunk = parked.partialOf(sizeClass).first();
        if (chunk != null) {
            unpark(chunk);
        }
        return chunk;
    }

    // ------------------------------------------------------------------ collecting and trimming

    /**
     * Owner: drains the remote queue of every parked chunk, retires those entirely free and moves full ones that
     * got segments back to the partial list. With {@code waitForClaims}, waits for producers that have claimed a
     * queue slot but not yet published their segment, so that nothing released before this call is left behind.
     */
    final void collectAllRemoteReleases(boolean waitForClaims) {
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            collectRemoteReleases(parked.partialIfMade(sizeClass), waitForClaims);
            collectRemoteReleases(parked.fullIfMade(sizeClass), waitForClaims);
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

    /** Owner: gives every entirely free chunk, current ones included, back to the pool. */
    final void retireFreeChunks() {
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            SizeClassChunk chunk = current[sizeClass];
            if (chunk != null) {
                chunk.drainRemote();
                if (chunk.isEntirelyFree()) {
                    current[sizeClass] = null;
                    chunk.moveCountsTo(requests);
                    onPlaceChanged(chunk);
                    retire(chunk);
                }
            }
        }
        collectAllRemoteReleases(false);
    }

    /**
     * Owner, at a decay tick (protocol 7 (decay)): retires every parked chunk that is entirely free and still
     * carries the mark of the previous tick (it was not current since: nobody allocated from it for a whole
     * period), marks the others, and parks every entirely free current chunk, marked: the next allocation of its
     * class makes it current again (a refill, which clears the mark), else the next tick retires it. Partial lists
     * first, so that a chunk this tick moves there is not looked at twice. Returns whether a chunk is left.
     */
    final boolean decaySizeClassedChunks() {
        boolean holds = false;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            decayParked(parked.partialIfMade(sizeClass));
            decayParked(parked.fullIfMade(sizeClass));
            SizeClassChunk chunk = current[sizeClass];
            if (chunk != null) {
                chunk.moveCountsTo(requests);
                chunk.drainRemote();
                if (chunk.isEntirelyFree()) {
                    current[sizeClass] = null;
                    chunk.decayMark = true;
                    park(chunk);
                }
            }
            holds |= chunkCount(sizeClass) > 0;
        }
        return holds;
    }

    private void decayParked(ChunkList list) {
        for (SizeClassChunk chunk = list == null ? null : list.first(), following; chunk != null; chunk = following) {
            following = chunk.next;
            int moved = chunk.drainRemote();
            if (moved > 0) {
                onParkedFreeCountRose(chunk);
            }
            if (chunk.isEntirelyFree() && chunk.decayMark) {
                unpark(chunk);
                retire(chunk);
                continue;
            }
            chunk.decayMark = true;
            if (moved > 0 && parked.isInFullList(chunk)) {
                moveToPartial(chunk);
            }
        }
    }

    /** Owner: parks every current chunk, so that the release of its last buffer retires it. */
    final void parkCurrentChunks() {
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            SizeClassChunk chunk = current[sizeClass];
            if (chunk != null) {
                current[sizeClass] = null;
                chunk.moveCountsTo(requests);
                park(chunk);
            }
        }
    }

    // ------------------------------------------------------------------ counts (owner only)

    /** Number of chunks this magazine holds for {@code sizeClass}. */
    final int chunkCount(int sizeClass) {
        return (current[sizeClass] == null ? 0 : 1) + parked.count(sizeClass);
    }

    /** Number of size-classed chunks this magazine holds. */
    final int chunkCount() {
        int n = 0;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            n += chunkCount(sizeClass);
        }
        return n;
    }

    /**
     * Cold, O(chunks): segments of this magazine's size-classed chunks that are not on their local free lists: its
     * live buffers, and those other threads released that the owner has not collected yet.
     */
    final long segmentsInUse() {
        long segments = 0;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            SizeClassChunk chunk = current[sizeClass];
            if (chunk != null) {
                segments += chunk.segmentCount - chunk.freeCount;
            }
            segments += parked.segmentsInUse(sizeClass);
        }
        return segments;
    }

    /** Slab bytes of every size-classed chunk this magazine holds. */
    final long chunkBytes() {
        long bytes = 0;
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            if (current[sizeClass] != null) {
                bytes += current[sizeClass].slab.size;
            }
            bytes += parked.slabBytes(sizeClass);
        }
        return bytes;
    }
}
