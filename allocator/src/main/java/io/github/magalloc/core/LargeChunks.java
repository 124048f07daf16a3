package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;

/**
 * A magazine's allocator for requests above the size classes: runs of pages in large chunks, spare empty chunks,
 * and the size of the next chunk (protocol 6 (large chunks)). Owner only, like the magazine's lists: a thread
 * magazine's thread, or a stripe's lock holder. Any thread gives pages back, through the chunk's own lock.
 *
 * <p>Each chunk has a slot for life, and a new chunk takes the lowest free one. Allocation takes the first run that
 * fits in the chunk with the lowest slot that has one: the low slots fill up, and the high ones are the first to
 * empty and go back. The room map ({@link RoomWord}, a bit per slot, set while its chunk has a free page) lets that
 * first fit look only at chunks with room: with hundreds of large chunks full of queued buffers, reading each
 * chunk's line would cost more than the allocation.
 */
final class LargeChunks {
    /** Spare chunks are looked at biggest first: a spare serves every request up to its size. */
    private static final Comparator<LargeChunk> BIGGEST_FIRST = (a, b) -> Integer.compare(b.slab.size, a.slab.size);

    private final ChunkSupply supply;
    private final Magazine magazine;
    /*
     * The slots, owner only:
     *   slots[s] == the chunk whose slot is s, or null;  slots[s] == null for every s >= slotLimit
     *   slotLimit == 0 || slots[slotLimit - 1] != null  (so slotLimit == 0 <=> no chunk)
     *   roomWords[s >> 6] holds slot s's bit; a word, once made, stays (chunks keep theirs for life)
     */
    private LargeChunk[] slots = new LargeChunk[4];
    private RoomWord[] roomWords = {new RoomWord()};
    /** One past the highest slot in use: the slots a look visits. */
    private int slotLimit;
    /** Scratch list of {@link #releaseSpares}, kept so that it makes no garbage. */
    private final ArrayList<LargeChunk> unused = new ArrayList<>(4);
    /*
     * The spare count, owner only, so that a stripe decides at each emptying without looking at every chunk:
     *   chunkBytes == sum of c.slab.size over the chunks
     *   spareBytes == sum of c.slab.size over the chunks with c.countedAsSpare,  spareCount == their number
     *   c.countedAsSpare  =>  c.isUnused()
     * A chunk is counted when an emptying or a spare look finds it unused, and uncounted when the owner allocates from
     * it or lets go of it; unused chunks whose emptying is not yet counted are left out (so spareBytes is at most the
     * unused bytes), and each is counted by the look its emptying causes.
     */
    private long chunkBytes;
    private long spareBytes;
    private int spareCount;
    /** Running average of the requests' runs (whole pages), over the last eight or so: sizes new chunks. */
    private int averageRunBytes;
    /** The run of the last request. */
    private int lastRunBytes;

    LargeChunks(ChunkSupply supply, Magazine magazine) {
        this.supply = supply;
        this.magazine = magazine;
    }

    /** Counts a request of {@code initialCapacity} bytes into the average, once per request; returns its run. */
    int noteRequest(int initialCapacity) {
        int runBytes = LargeChunk.runBytes(initialCapacity);
        averageRunBytes += (runBytes - averageRunBytes) >> 3;
        lastRunBytes = runBytes;
        return runBytes;
    }

    /** The run of the last request counted ({@link #noteRequest}). */
    int lastRunBytes() {
        return lastRunBytes;
    }

    /**
     * Gives {@code buf} a run of {@code runBytes} with the first fit over the chunks with room; if none has one, a new
     * chunk on {@code spare} (a slab the caller took from the system), else on a pooled slab, else, if the magazine
     * {@link Magazine#takesNewSlabs}, on a new slab from the system. A spare that is not needed goes back. Returns
     * false only when there is no spare, no pooled slab fits, and no new slab may be taken.
     */
    boolean allocate(MagByteBuf buf, int runBytes, int initialCapacity, int maxCapacity, Slab spare) {
        LargeChunk[] slots = this.slots;
        RoomWord[] roomWords = this.roomWords;
        for (int w = 0, words = (slotLimit + 63) >>> 6; w < words; w++) {
            for (long room = roomWords[w].lvWord(); room != 0; room &= room - 1) {
                LargeChunk chunk = slots[(w << 6) + Long.numberOfTrailingZeros(room)];
                int offset = chunk.allocate(runBytes);
                if (offset >= 0) {
                    allocated(chunk, buf, offset, runBytes, initialCapacity, maxCapacity);
                    if (spare != null) {
                        magazine.giveBack().largeSpare(spare);
                    }
                    return true;
                }
            }
        }
        Slab slab = spare;
        if (slab == null) {
            int size = chunkSizeFor(runBytes);
            slab = magazine.takesNewSlabs() ? supply.takeLargeSlab(size) : supply.takePooledLargeSlab(size);
            if (slab == null) {
                return false;
            }
        }
        supply.context.metrics.largeChunkCreated();
        magazine.onChunkTaken();
        addAllocating(slab, buf, runBytes, initialCapacity, maxCapacity);
        return true;
    }

    /**
     * Owner: a new chunk on {@code slab} whose first run goes to {@code buf}, taken before the chunk is in a slot: a
     * thread making room finds chunks through the slots ({@link #reclaimUnused}), and must never find this one
     * unused and take it between its making and its first run.
     */
    private void addAllocating(Slab slab, MagByteBuf buf, int runBytes, int initialCapacity, int maxCapacity) {
        LargeChunk chunk = newChunk(slab);
        int offset = chunk.allocate(runBytes);
        publish(chunk);
        allocated(chunk, buf, offset, runBytes, initialCapacity, maxCapacity);
    }

    /** The run at {@code offset} of {@code chunk} is taken: it goes to {@code buf}, and the chunk is in use. */
    private void allocated(LargeChunk chunk, MagByteBuf buf, int offset, int runBytes, int initialCapacity,
                           int maxCapacity) {
        checkUnwrittenIfDebug(chunk, offset, runBytes);
        chunk.decayMark = false;
        if (chunk.countedAsSpare) {
            uncountSpare(chunk);
        }
        buf.init(chunk, -1, offset, runBytes, initialCapacity, maxCapacity);
    }

    /**
     * Debug mode: the run just taken was not written since it was freed ({@link DebugMemory}); else it goes back, and
     * the allocation fails with the report.
     */
    private void checkUnwrittenIfDebug(LargeChunk chunk, int offset, int runBytes) {
        if (!supply.context.isDebug()) {
            return;
        }
        try {
            DebugMemory.checkUnwrittenSinceFreed(chunk.slab, offset, runBytes);
        } catch (IllegalStateException written) {
            if (chunk.freeRefusedRun(offset, runBytes)) {
                onEmptied(chunk);
            }
            throw written;
        }
    }

    /**
     * Slab size of a new chunk for a run of {@code runBytes}: room for two average runs, rounded up to a power of
     * two from 128 KiB to {@code maxLargeChunkSize}, and at least the run itself. Small enough that a rarely used
     * chunk costs little, big enough that several buffers share a chunk and pages freed around a long-lived one are
     * reused.
     */
    int chunkSizeFor(int runBytes) {
        int maxChunkSize = supply.context.settings.maxLargeChunkSize();
        long wanted = Math.max(runBytes, (long) averageRunBytes * 2);
        int chunkSize = wanted >= maxChunkSize ? maxChunkSize
            : Math.max(SizeClasses.MIN_CHUNK_SIZE * 2, Integer.highestOneBit((int) wanted - 1) << 1);
        int size = Math.max(chunkSize, runBytes);
        if (Slab.capacityForChunks(size, supply.context.direct) < runBytes) {
            // A heap slab this big is an array header short of its size (Slab.heapForChunks): the next size up holds
            // the run and fills whole collector regions, a page more only where that would pass the largest chunk.
            size = size < maxChunkSize ? size << 1 : runBytes + LargeChunk.PAGE_SIZE;
        }
        return size;
    }

    /** Owner: a new chunk on {@code slab}, in the lowest free slot. */
    LargeChunk add(Slab slab) {
        LargeChunk chunk = newChunk(slab);
        publish(chunk);
        return chunk;
    }

    /** Owner: a new chunk on {@code slab} for the lowest free slot, not yet in it. */
    private LargeChunk newChunk(Slab slab) {
        int slot = 0;
        while (slot < slotLimit && slots[slot] != null) {
            slot++;
        }
        if (slot == slots.length) {
            slots = Arrays.copyOf(slots, slot * 2);
        }
        int word = slot >>> 6;
        if (word == roomWords.length) {
            roomWords = Arrays.copyOf(roomWords, word + 1);
            roomWords[word] = new RoomWord();
        }
        return new LargeChunk(slab, supply, magazine, slot, roomWords[word]);
    }

    /** Owner: {@code chunk}, just made, takes its slot. */
    private void publish(LargeChunk chunk) {
        slots[chunk.slot] = chunk;
        slotLimit = Math.max(slotLimit, chunk.slot + 1);
        chunkBytes += chunk.slab.size;
    }

    /** Owner, for tests: the number of chunks. */
    int chunkCount() {
        int count = 0;
        for (int s = 0; s < slotLimit; s++) {
            if (slots[s] != null) {
                count++;
            }
        }
        return count;
    }

    /**
     * Owner: a release emptied {@code chunk}. Counts it as a spare if it still is one (unused: only the owner raises
     * the count, so the read is exact; attached: only the owner detaches), and looks at every chunk only when the
     * counted spares exceed the allowance, which is exactly when that look gives one back. So a stripe, whose
     * releasers decide at once, pays for an emptying in proportion to what goes back, not to its number of chunks.
     */
    void onEmptied(LargeChunk chunk) {
        if (chunk.countedAsSpare || chunk.isDetached() || !chunk.isUnused()) {
            return;
        }
        countSpare(chunk);
        if (spareCount > 1 && spareBytes > spareAllowance(chunkBytes - spareBytes)) {
            releaseSpares();
        }
    }

    /**
     * Gives back the unused chunks beyond a spare allowance: one chunk, and more while they add up to at most a
     * share of the bytes of the chunks in use; which ones and what share, {@link LargeSlabReturn} says. Why only a
     * share: a burst that is over should not stay reserved. Where a slab goes to the system and decay ticks mark the
     * chunks, a chunk beyond the allowance goes only if it served no allocation since the last tick (its mark); one
     * that served in this period waits for the tick ({@link #decay}): a level of large buffers that swings within a
     * period then reuses its chunks instead of taking a new slab from the system at every swing, and a burst's chunks
     * still go back within two periods. Counts the spares kept afresh. Sorting allocates nothing here: below 32
     * elements the JDK sorts in place.
     */
    void releaseSpares() {
        long inUseBytes = 0;
        for (int s = 0; s < slotLimit; s++) {
            LargeChunk chunk = slots[s];
            if (chunk == null) {
                continue;
            }
            if (chunk.isDetached()) {
                letGo(chunk); // a shortage took it (reclaimIfUnused): its slab is back already
            } else if (chunk.isUnused()) {
                unused.add(chunk);
            } else {
                inUseBytes += chunk.slab.size;
            }
        }
        if (supply.largeSlabReturn().biggestSparesFirst) {
            unused.sort(BIGGEST_FIRST);
        }
        long allowance = spareAllowance(inUseBytes);
        boolean keepsServedThisPeriod = supply.largeSlabReturn().keepsSparesServedThisPeriod
            && magazine.marksUnusedPeriods();
        long keptBytes = 0;
        for (int i = 0, n = unused.size(); i < n; i++) {
            LargeChunk chunk = unused.get(i);
            keptBytes += chunk.slab.size;
            if (i > 0 && keptBytes > allowance && (chunk.decayMark || !keepsServedThisPeriod)) {
                letGo(chunk);
            } else if (!chunk.countedAsSpare) {
                countSpare(chunk);
            }
        }
        unused.clear();
        assert countsHold() : "the slots or the spare count broken";
    }

    /** Spare bytes a magazine keeps beyond its first spare, for {@code inUseBytes} in chunks in use. */
    private long spareAllowance(long inUseBytes) {
        return inUseBytes / supply.largeSlabReturn().spareShare;
    }

    private void countSpare(LargeChunk chunk) {
        chunk.countedAsSpare = true;
        spareBytes += chunk.slab.size;
        spareCount++;
    }

    private void uncountSpare(LargeChunk chunk) {
        chunk.countedAsSpare = false;
        spareBytes -= chunk.slab.size;
        spareCount--;
    }

    /** Owner: lets go of {@code chunk}: it leaves its slot, and its slab goes back with its last page. */
    private void letGo(LargeChunk chunk) {
        if (chunk.countedAsSpare) {
            uncountSpare(chunk);
        }
        if (chunk.detach()) {
            magazine.giveBack().largeChunk(chunk.slab);
        }
        slots[chunk.slot] = null;
        while (slotLimit > 0 && slots[slotLimit - 1] == null) {
            slotLimit--;
        }
        chunkBytes -= chunk.slab.size;
    }

    /** Gives back every chunk no buffer uses (trim). */
    void detachUnused() {
        for (int s = 0; s < slotLimit; s++) {
            LargeChunk chunk = slots[s];
            if (chunk != null && (chunk.isUnused() || chunk.isDetached())) {
                letGo(chunk);
            }
        }
    }

    /**
     * Any thread, making room on a shortage (protocol 9 (making room)): detaches every chunk no buffer uses, whoever
     * owns this magazine and whatever it is doing ({@link LargeChunk#reclaimIfUnused}, under each chunk's lock).
     * Reads the slots without the owner's knowledge: a stale read misses a chunk or finds one already let go, which
     * the chunk's lock and its detached flag make harmless; the owner forgets the detached ones at its next look.
     */
    void reclaimUnused() {
        LargeChunk[] slots = this.slots;
        for (int s = 0, limit = Math.min(slotLimit, slots.length); s < limit; s++) {
            LargeChunk chunk = slots[s];
            if (chunk != null && chunk.isUnused()) {
                chunk.reclaimIfUnused();
            }
        }
    }

    /**
     * Owner, at a decay tick (protocol 7 (decay)): gives back every chunk that no buffer uses and that served no
     * allocation since the previous tick, and marks the others. Returns whether a chunk is left.
     */
    boolean decay() {
        for (int s = 0; s < slotLimit; s++) {
            LargeChunk chunk = slots[s];
            if (chunk == null) {
                continue;
            }
            if (chunk.decayMark && chunk.isUnused() || chunk.isDetached()) {
                letGo(chunk);
            } else {
                chunk.decayMark = true;
            }
        }
        assert countsHold() : "the slots or the spare count broken";
        return slotLimit > 0;
    }

    /**
     * Lets go of every chunk (the magazine's thread ended): each goes back with its last page, on whichever thread.
     * Large chunks need no drain: any thread gives pages back directly.
     */
    void detachAll() {
        for (int s = slotLimit - 1; s >= 0; s--) {
            if (slots[s] != null) {
                letGo(slots[s]);
            }
        }
    }

    /** For assertions, owner: the slots' and the spare count's equations (above) hold. */
    boolean countsHold() {
        long bytes = 0;
        long spares = 0;
        int spareChunks = 0;
        for (int s = 0; s < slots.length; s++) {
            LargeChunk chunk = slots[s];
            if (chunk == null) {
                continue;
            }
            if (chunk.slot != s || s >= slotLimit) {
                return false;
            }
            bytes += chunk.slab.size;
            if (chunk.countedAsSpare) {
                if (!chunk.isUnused()) {
                    return false;
                }
                spares += chunk.slab.size;
                spareChunks++;
            }
        }
        return (slotLimit == 0 || slots[slotLimit - 1] != null) && bytes == chunkBytes && spares == spareBytes
            && spareChunks == spareCount;
    }
}
