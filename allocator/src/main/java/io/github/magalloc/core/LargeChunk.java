package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A slab for requests above the largest size class, cut into {@link #PAGE_SIZE}-byte pages: a buffer takes the
 * first run of free pages long enough for it, and gives its pages back when released, on any thread.
 *
 * <p>Why pages rather than bumping an offset: a bump-allocated chunk is free again only when every buffer in it is,
 * so one long-lived buffer pins the whole chunk. With pages, the memory around a long-lived buffer is reused as
 * soon as its neighbours go.
 *
 * <h2>Who writes what</h2>
 * Every field below is guarded by the chunk's lock ({@link #lockWord}, a {@link SpinLock}): allocation (the owning
 * magazine's thread or lock holder), release (any thread), {@link #detach} (the owner) and {@link #reclaimIfUnused}
 * (any thread making room on a shortage). Large requests are rare next
 * to size-classed ones, and a lock costs the same one atomic per allocation and per release as a reference count would,
 * while any thread can give pages back directly: so a large chunk needs none of the magazine's ownership protocols
 * (remote queues, sweeps of them, the ended-thread drain). The lock also orders memory: a releaser's last write to its
 * pages happens before its unlock, which happens before the lock that hands those pages out again.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>{@code usedPageCount == bitCount(usedPages) - padding == pages of live buffers in this chunk}: a bit is
 *       set by the allocation that hands its page out and cleared by the release that gives it back; a release
 *       whose pages are not all set is a double free and throws, changing nothing. Bits past {@link #pageCount} are
 *       set from birth (padding) so the search needs no bounds check.</li>
 *   <li>{@code longest free run <= freeRunBound <= pageCount - usedPageCount}: a failed search, which visits every
 *       run, stores the longest exactly; an allocation can only shorten runs; a release that frees {@code p} pages
 *       can at most join them to two runs of at most the old bound each. The owner reads the bound without the
 *       lock to skip chunks that cannot serve a request (a magazine's first fit visits every chunk in turn, and
 *       would otherwise lock and search each). A stale read only costs a
 *       wasted look, or a skipped chunk whose space a just-finished release on another thread made.</li>
 *   <li>The slab goes back exactly once, by the thread that makes {@code detached && usedPageCount == 0} true
 *       under the lock: {@link #detach} (the magazine lets go of the chunk; never undone), {@link #reclaimIfUnused}
 *       (a shortage takes an unused chunk) or the release of the last page after either. Allocation refuses a
 *       detached chunk, so {@code usedPageCount} never rises again.</li>
 *   <li>{@code room bit set <=> !detached && usedPageCount < pageCount} ({@link RoomWord}): the lock holder that
 *       changes the right side changes the bit, so the magazine's first fit skips full chunks without reading them.</li>
 * </ul>
 */
final class LargeChunk extends Chunk implements SpinLock.Word {
    static final int PAGE_SHIFT = 13;
    /** 8 KiB: larger pages round each buffer up further and reserve no less around long-lived buffers. */
    static final int PAGE_SIZE = 1 << PAGE_SHIFT;

    /** The magazine that allocates from this chunk; told when a release empties it. */
    final Magazine magazine;
    /** This chunk's place in its magazine's {@link LargeChunks}, for life. */
    final int slot;
    /** The word of the magazine's room map that holds this chunk's bit, {@link #roomBit} ({@link RoomWord}). */
    private final RoomWord room;
    private final long roomBit;
    /** Where the chunk's slab goes back once it is detached and no buffer uses it. */
    private final ChunkSupply supply;
    final int pageCount;
    /**
     * The chunk's lock word ({@link SpinLock}, the module's one spin-lock protocol): it guards every field below. A
     * field of the chunk, not a padded lock object of its own, which would be garbage when the chunk goes.
     */
    private volatile int lockWord;
    /** Bit {@code p % 64} of word {@code p / 64} is set while page {@code p} belongs to a live buffer. */
    private final long[] usedPages;
    /** Written under the lock; read by the owner without it ({@link #isUnused}). */
    private int usedPageCount;
    /** An upper bound of the longest run of free pages; see the invariants. Written under the lock only. */
    private int freeRunBound;
    /** Written under the lock, once ({@link #soDetached}); read by the owner without it ({@link #isDetached}). */
    private boolean detached;
    /**
     * Owner only, outside the lock: set by a decay tick, cleared by an allocation from this chunk; an unused chunk
     * still marked at a tick served nothing for a whole period (protocol 7 (decay)).
     */
    boolean decayMark;
    /**
     * Owner only, outside the lock: whether {@link LargeChunks} counts this chunk among its spares; set only while the
     * chunk is unused and attached, cleared by the owner's allocation from it and when the owner lets go of it.
     */
    boolean countedAsSpare;

    private static final VarHandle FREE_RUN_BOUND;
    private static final VarHandle LOCK_WORD;
    private static final VarHandle USED_PAGE_COUNT;
    private static final VarHandle DETACHED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            FREE_RUN_BOUND = lookup.findVarHandle(LargeChunk.class, "freeRunBound", int.class);
            LOCK_WORD = lookup.findVarHandle(LargeChunk.class, "lockWord", int.class);
            USED_PAGE_COUNT = lookup.findVarHandle(LargeChunk.class, "usedPageCount", int.class);
            DETACHED = lookup.findVarHandle(LargeChunk.class, "detached", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A chunk with every page free, in {@code slot} of its magazine's chunks, whose bit in {@code room} it sets. */
    LargeChunk(Slab slab, ChunkSupply supply, Magazine magazine, int slot, RoomWord room) {
        super(slab, supply.context);
        this.supply = supply;
        this.magazine = magazine;
        this.slot = slot;
        this.room = room;
        this.roomBit = 1L << slot; // the shift takes slot % 64
        room.setBit(roomBit);
        this.pageCount = slab.capacity >>> PAGE_SHIFT;
        this.usedPages = new long[(pageCount + 63) >>> 6];
        this.freeRunBound = pageCount;
        int padding = usedPages.length * 64 - pageCount;
        if (padding > 0) {
            usedPages[usedPages.length - 1] = -1L << (64 - padding);
        }
        linkToSlab();
    }

    /** Bytes a buffer of {@code size} bytes takes: whole pages. */
    static int runBytes(int size) {
        return (size + PAGE_SIZE - 1) & -PAGE_SIZE;
    }

    /**
     * Owner only: takes the first run of {@code runBytes / PAGE_SIZE} free pages and returns its offset, or -1 if no
     * run is long enough (or the chunk was detached).
     */
    int allocate(int runBytes) {
        int pages = runBytes >>> PAGE_SHIFT;
        if (laFreeRunBound() < pages) {
            return -1; // no lock taken: see the invariant of freeRunBound
        }
        SpinLock.lock(this);
        try {
            if (detached || freeRunBound < pages) {
                return -1;
            }
            int first = firstFreeRun(pages);
            if (first < 0) {
                return -1;
            }
            setPages(first, pages);
            usedPageCount += pages;
            if (usedPageCount == pageCount) {
                room.clearBit(roomBit);
            }
            soFreeRunBound(Math.min(freeRunBound, pageCount - usedPageCount));
            assert countsFit() : countsMessage();
            return first << PAGE_SHIFT;
        } finally {
            SpinLock.unlock(this);
        }
    }

    /** Lock held. Release store: the owner's lock-free read (acquire) sees a bound no older than the last unlock. */
    private void soFreeRunBound(int bound) {
        FREE_RUN_BOUND.setRelease(this, bound);
    }

    /** Acquire: pairs with {@link #soFreeRunBound}; a stale value is allowed (see the invariants). */
    private int laFreeRunBound() {
        return (int) FREE_RUN_BOUND.getAcquire(this);
    }

    /**
     * Gives back the pages of {@code buf}, on any thread. Tells the magazine when this empties the chunk, so its
     * owner can give back chunks it no longer needs; gives the slab back itself if the magazine already let go.
     */
    @Override
    protected void release(MagByteBuf buf, long threadId) {
        int offset = buf.offset();
        int runBytes = buf.reservedBytes();
        if (magazine.lvOwnerThreadId() != threadId || !magazine.keepReleasedRun(this, offset, runBytes)) {
            freeRun(offset, runBytes);
        }
    }

    /**
     * Gives back the run of {@code runBytes} at {@code offset}, on any thread, and tells the magazine if that empties
     * the chunk.
     */
    void freeRun(int offset, int runBytes) {
        if (freePages(offset, runBytes)) {
            magazine.onLargeChunkEmptied(this);
        }
    }

    /**
     * Owner only: gives back a run it took but debug mode refused to hand out ({@link LargeChunks}), telling no one:
     * a stripe's owner holds the lock its releasers take to tell it. Returns whether the chunk is empty now, for the
     * owner to look at itself.
     */
    boolean freeRefusedRun(int offset, int runBytes) {
        return freePages(offset, runBytes);
    }

    /** Returns true if this emptied the chunk and the magazine still holds it (else the slab has gone back). */
    private boolean freePages(int offset, int runBytes) {
        int first = offset >>> PAGE_SHIFT;
        int pages = runBytes >>> PAGE_SHIFT;
        boolean empty;
        boolean giveBack;
        SpinLock.lock(this);
        try {
            clearPages(first, pages);
            pagesFreed(pages);
            empty = usedPageCount == 0;
            giveBack = empty && detached;
        } finally {
            SpinLock.unlock(this);
        }
        if (giveBack) {
            supply.retireLargeChunk(slab);
        }
        return empty && !giveBack;
    }

    /**
     * Any thread holding {@code buf}: gives back its pages beyond the first {@code runBytes} (fewer than it holds,
     * at least one page), under the lock like a release (protocol 6a (shrinking)). The chunk keeps a used page, so
     * no slab goes back and no magazine is told.
     */
    void shrink(MagByteBuf buf, int runBytes) {
        int first = buf.offset() >>> PAGE_SHIFT;
        int kept = runBytes >>> PAGE_SHIFT;
        int freed = (buf.reservedBytes() >>> PAGE_SHIFT) - kept;
        assert kept > 0 && freed > 0 : "shrink of " + buf.reservedBytes() + " bytes to " + runBytes;
        if (context.isDebug()) {
            buf.poisonTail(runBytes);
        }
        SpinLock.lock(this);
        try {
            clearPages(first + kept, freed);
            pagesFreed(freed);
        } finally {
            SpinLock.unlock(this);
        }
        buf.cutReservation(runBytes);
    }

    /** Lock held, {@code pages} pages just cleared: the counts, the bound and the room bit follow. */
    private void pagesFreed(int pages) {
        if (usedPageCount == pageCount && !detached) {
            room.setBit(roomBit);
        }
        usedPageCount -= pages;
        soFreeRunBound((int) Math.min(pageCount - usedPageCount, 2L * freeRunBound + pages));
        assert countsFit() : countsMessage();
    }

    /**
     * Owner only: the magazine lets go of this chunk (it is not needed, the magazine trims, or its thread ended).
     * Returns true if no buffer uses it: the caller then gives its slab back (the owner may hold a stripe's lock, and
     * gives back after its unlock); else the slab goes back with the last buffer's release. False too if a shortage
     * already took the chunk ({@link #reclaimIfUnused}): its slab went back then.
     */
    boolean detach() {
        SpinLock.lock(this);
        try {
            if (detached) {
                return false;
            }
            soDetached();
            room.clearBit(roomBit);
            return usedPageCount == 0;
        } finally {
            SpinLock.unlock(this);
        }
    }

    /**
     * Any thread, making room on a shortage (protocol 9 (making room)): detaches the chunk if no buffer uses it, as its
     * owner would, and gives its slab back; returns whether it did. The hand-over of a chunk whose owner may be busy,
     * blocked or allocating from it right now: under the chunk's lock, of the owner's allocation and this at most one
     * finds the chunk unused and attached and acts, so a run is never handed out of a slab that went back, and the
     * slab goes back once. The owner forgets a detached chunk at its next look ({@link LargeChunks}).
     */
    boolean reclaimIfUnused() {
        SpinLock.lock(this);
        try {
            if (detached || usedPageCount != 0) {
                return false;
            }
            soDetached();
            room.clearBit(roomBit);
        } finally {
            SpinLock.unlock(this);
        }
        supply.retireLargeChunk(slab);
        return true;
    }

    /** Lock held. Release store: the owner reads it without the lock ({@link #isDetached}). */
    private void soDetached() {
        DETACHED.setRelease(this, true);
    }

    @Override
    public int lvLockWord() {
        return lockWord;
    }

    /** Acquire on success: the previous holder's writes to the pages and counts are visible. */
    @Override
    public boolean casLockWord(int expect, int update) {
        return LOCK_WORD.compareAndSet(this, expect, update);
    }

    /** Release: everything written under the lock is visible to the next holder. */
    @Override
    public void soLockWord(int value) {
        LOCK_WORD.setRelease(this, value);
    }

    /**
     * Owner only: whether the chunk is detached, by the magazine or by a shortage ({@link #reclaimIfUnused}). Acquire,
     * outside the lock: a chunk is detached for good, so a true answer is exact; a false one may be stale only for a
     * chunk no buffer uses, which allocation refuses under the lock all the same.
     */
    boolean isDetached() {
        return (boolean) DETACHED.getAcquire(this);
    }

    /**
     * Any thread, for an error's report: bytes of the pages in use (kept runs included), as the count reads now.
     */
    @Override
    public long liveBufferBytes() {
        return (long) (int) USED_PAGE_COUNT.getAcquire(this) << PAGE_SHIFT;
    }

    /** Lock held: the page count and the bound within their invariants' ranges, the room bit as the count says. */
    private boolean countsFit() {
        return usedPageCount >= 0 && usedPageCount <= pageCount && freeRunBound <= pageCount - usedPageCount
            && hasRoomBit() == (!detached && usedPageCount < pageCount);
    }

    private String countsMessage() {
        return "large chunk counts broken: " + usedPageCount + " used of " + pageCount + " pages, free run bound "
            + freeRunBound + ", room bit " + hasRoomBit();
    }

    /** Whether this chunk's bit in its magazine's room map is set ({@link RoomWord}). */
    boolean hasRoomBit() {
        return (room.lvWord() & roomBit) != 0;
    }

    /**
     * Owner only: true when no buffer uses the chunk. Read without the lock, as a spare look reads every chunk of the
     * magazine while releasers hold their locks: only the owner raises the count (it allocates), releasers only lower
     * it, so a 0 the owner reads is exact and stays so until it allocates. A positive read that a release has just
     * made stale costs nothing: that releaser tells the magazine after its unlock, and the look it causes reads
     * after that (protocol 6 (large chunks)).
     */
    boolean isUnused() {
        return (int) USED_PAGE_COUNT.getAcquire(this) == 0;
    }

    /**
     * Lock held: the first page of the first run of {@code pages} free pages, or -1; having then seen every run, it
     * stores the longest as the bound.
     */
    private int firstFreeRun(int pages) {
        int limit = usedPages.length << 6;
        int runStart = 0;
        int page = 0;
        int longest = 0;
        while (page < limit) {
            int bit = page & 63;
            long used = usedPages[page >>> 6] >>> bit;
            int free = Math.min(Long.numberOfTrailingZeros(used), 64 - bit);
            page += free;
            if (page - runStart >= pages) {
                return runStart;
            }
            if (free < 64 - bit) {
                longest = Math.max(longest, page - runStart);
                // Bit 0 of used >>> free is the used page we stopped at; skip its run of used pages (the zeros
                // shifted in at the top become ones under ~, which ends the count at the word's end).
                page += Long.numberOfTrailingZeros(~(used >>> free));
                runStart = page;
            }
        }
        soFreeRunBound(Math.max(longest, page - runStart));
        return -1;
    }

    /** Lock held: marks the pages used. */
    private void setPages(int first, int pages) {
        for (int page = first, end = first + pages; page < end; ) {
            int count = Math.min(64 - (page & 63), end - page);
            usedPages[page >>> 6] |= mask(page, count);
            page += count;
        }
    }

    /** Lock held: marks the pages free; throws, changing nothing, if any of them is not in use. */
    private void clearPages(int first, int pages) {
        if (pages <= 0 || first + pages > pageCount) {
            throw doubleFree(first, pages);
        }
        for (int page = first, end = first + pages; page < end; ) {
            int count = Math.min(64 - (page & 63), end - page);
            long mask = mask(page, count);
            if ((usedPages[page >>> 6] & mask) != mask) {
                throw doubleFree(first, pages);
            }
            page += count;
        }
        for (int page = first, end = first + pages; page < end; ) {
            int count = Math.min(64 - (page & 63), end - page);
            usedPages[page >>> 6] &= ~mask(page, count);
            page += count;
        }
    }

    /** {@code count} (1 to 64) bits from bit {@code page % 64} of a word. */
    private static long mask(int page, int count) {
        return (count == 64 ? -1L : (1L << count) - 1) << (page & 63);
    }

    private IllegalStateException doubleFree(int first, int pages) {
        return new IllegalStateException("magalloc: pages " + first + " to " + (first + pages - 1) + " of a "
            + slab.size + "-byte large chunk released but not in use (double free through a stale buffer?)");
    }
}
