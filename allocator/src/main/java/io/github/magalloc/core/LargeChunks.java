package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

import java.util.ArrayList;
import java.util.Comparator;

/**
 * A magazine's allocator for requests above the size classes: runs of pages in large chunks, spare empty chunks,
 * and the size of the next chunk (protocol 6 (large chunks)). Owner only, like the magazine's lists: a thread
 * magazine's thread, or a stripe's lock holder. Any thread gives pages back, through the chunk's own lock.
 *
 * <p>Chunks are kept in the order they were made, and allocation takes the first run that fits in the first chunk
 * that has one: the older chunks fill up, and the newer ones are the first to empty and go back.
 */
final class LargeChunks {
    /** Spare chunks are looked at biggest first: a spare serves every request up to its size. */
    private static final Comparator<LargeChunk> BIGGEST_FIRST = (a, b) -> Integer.compare(b.slab.size, a.slab.size);

    private final ChunkSupply supply;
    private final Magazine magazine;
    private final ArrayList<LargeChunk> chunks = new ArrayList<>(4);
    /** Scratch list of {@link #releaseSpares}, kept so that it makes no garbage. */
    private final ArrayList<LargeChunk> unused = new ArrayList<>(4);
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
     * Gives {@code buf} a run of {@code runBytes} with the first fit over the chunks; if none has room, a new chunk
     * on {@code spare} (a slab the caller took from the system), else on a pooled slab, else, if the magazine
     * {@link Magazine#takesNewSlabs}, on a new slab from the system. A spare that is not needed goes back. Returns
     * false only when there is no spare, no pooled slab fits, and no new slab may be taken.
     */
    boolean allocate(MagByteBuf buf, int runBytes, int initialCapacity, int maxCapacity, Slab spare) {
        ArrayList<LargeChunk> chunks = this.chunks;
        for (int i = 0, n = chunks.size(); i < n; i++) {
            LargeChunk chunk = chunks.get(i);
            int offset = chunk.allocate(runBytes);
            if (offset >= 0) {
                checkUnwrittenIfDebug(chunk, offset, runBytes);
                chunk.decayMark = false;
                buf.init(chunk, -1, offset, runBytes, initialCapacity, maxCapacity);
                if (spare != null) {
                    supply.releaseLargeSlab(spare);
                }
                return true;
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
        LargeChunk chunk = new LargeChunk(slab, supply, magazine);
        chunks.add(chunk);
        int offset = chunk.allocate(runBytes);
        checkUnwrittenIfDebug(chunk, offset, runBytes);
        buf.init(chunk, -1, offset, runBytes, initialCapacity, maxCapacity);
        return true;
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
            chunk.freeRun(offset, runBytes);
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
        return Math.max(chunkSize, runBytes);
    }

    /**
     * Gives back the unused chunks beyond a spare allowance: one chunk, and more while they add up to at most a
     * share of the bytes of the chunks in use; which ones and what share, {@link LargeSlabReturn} says. Why only a
     * share: a burst that is over should not stay reserved. Sorting allocates nothing here: below 32 elements the
     * JDK sorts in place.
     */
    void releaseSpares() {
        long inUseBytes = 0;
        for (int i = 0, n = chunks.size(); i < n; i++) {
            LargeChunk chunk = chunks.get(i);
            if (chunk.isUnused()) {
                unused.add(chunk);
            } else {
                inUseBytes += chunk.slab.size;
            }
        }
        LargeSlabReturn policy = supply.largeSlabReturn();
        if (policy.biggestSparesFirst) {
            unused.sort(BIGGEST_FIRST);
        }
        long allowance = inUseBytes / policy.spareShare;
        long spareBytes = 0;
        for (int i = 0, n = unused.size(); i < n; i++) {
            LargeChunk chunk = unused.get(i);
            spareBytes += chunk.slab.size;
            if (i > 0 && spareBytes > allowance) {
                chunks.remove(chunk);
                chunk.detach();
            }
        }
        unused.clear();
    }

    /** Gives back every chunk no buffer uses (trim). */
    void detachUnused() {
        for (int i = 0; i < chunks.size(); ) {
            LargeChunk chunk = chunks.get(i);
            if (chunk.isUnused()) {
                chunks.remove(i);
                chunk.detach();
            } else {
                i++;
            }
        }
    }

    /**
     * Owner, at a decay tick (protocol 7 (decay)): gives back every chunk that no buffer uses and that served no
     * allocation since the previous tick, and marks the others. Returns whether a chunk is left.
     */
    boolean decay() {
        for (int i = 0; i < chunks.size(); ) {
            LargeChunk chunk = chunks.get(i);
            if (chunk.decayMark && chunk.isUnused()) {
                chunks.remove(i);
                chunk.detach();
            } else {
                chunk.decayMark = true;
                i++;
            }
        }
        return !chunks.isEmpty();
    }

    /**
     * Lets go of every chunk (the magazine's thread ended): each goes back with its last page, on whichever thread.
     * Large chunks need no drain: any thread gives pages back directly.
     */
    void detachAll() {
        for (int i = 0, n = chunks.size(); i < n; i++) {
            chunks.get(i).detach();
        }
        chunks.clear();
    }
}
