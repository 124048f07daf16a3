package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;

/**
 * A thread magazine's large runs that its owner released, kept for the owner's next allocation of the same length
 * (protocol 6 (large chunks)): such an allocation takes the run back with no lock, no bitmap search and no atomic, as a
 * size-classed allocation takes a segment. Owner only, plain. A kept run's pages stay marked used in their chunk, so
 * nobody else can take them and the chunk does not look empty; releases on other threads still go through the
 * chunk's lock.
 *
 * <pre>
 *   count <= CAPACITY,  keptBytes <= maxBytes       (what the owner keeps beyond its live buffers)
 *   every kept run is of a chunk the magazine has not detached
 * </pre>
 * A decay tick, a trim and the magazine's end give every kept run back to its chunk ({@link #giveBackAll}), so a
 * magazine keeps nothing here for longer than a decay period.
 */
final class ReleasedRuns {
    /** Runs kept at most: enough for the few lengths a thread allocates and releases in turn. */
    static final int CAPACITY = 8;

    private final long maxBytes;
    private final LargeChunk[] chunks = new LargeChunk[CAPACITY];
    private final int[] offsets = new int[CAPACITY];
    private final int[] runs = new int[CAPACITY];
    private int count;
    private long keptBytes;

    /** Keeps at most {@code maxBytes} of runs (twice the largest pooled request: one such run and change). */
    ReleasedRuns(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Owner: keeps a run the owner released, if there is room; returns whether it did (else the caller frees it). */
    boolean keep(LargeChunk chunk, int offset, int runBytes) {
        if (count == CAPACITY || keptBytes + runBytes > maxBytes || chunk.isDetached()) {
            return false;
        }
        chunks[count] = chunk;
        offsets[count] = offset;
        runs[count] = runBytes;
        count++;
        keptBytes += runBytes;
        return true;
    }

    /**
     * Owner: gives {@code buf} the kept run of exactly {@code runBytes} released last, if any; returns whether it did.
     */
    boolean take(MagByteBuf buf, int runBytes, int initialCapacity, int maxCapacity) {
        for (int i = count - 1; i >= 0; i--) {
            if (runs[i] == runBytes) {
                LargeChunk chunk = chunks[i];
                int offset = offsets[i];
                removeAt(i);
                chunk.decayMark = false;
                buf.init(chunk, -1, offset, runBytes, initialCapacity, maxCapacity);
                return true;
            }
        }
        return false;
    }

    /** Owner: every kept run goes back to its chunk, through the chunk's lock, as a release would. */
    void giveBackAll() {
        while (count > 0) {
            int i = count - 1;
            LargeChunk chunk = chunks[i];
            int offset = offsets[i];
            int runBytes = runs[i];
            removeAt(i);
            chunk.freeRun(offset, runBytes);
        }
    }

    /** Bytes kept; tests read it. */
    long keptBytes() {
        return keptBytes;
    }

    /** The top entry takes the place of entry {@code i}: order does not matter beyond the search's preference. */
    private void removeAt(int i) {
        int top = --count;
        keptBytes -= runs[i];
        chunks[i] = chunks[top];
        offsets[i] = offsets[top];
        runs[i] = runs[top];
        chunks[top] = null;
    }
}
