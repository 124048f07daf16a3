package io.github.magalloc;

import java.util.Arrays;

/**
 * A magazine's non-current chunks of one size class: an unordered array with O(1) add and remove (the chunk
 * remembers its slot). Owner only.
 *
 * <p>Chunks that filled up stay here too, so segments released to them by other threads are found by the next
 * {@link #takeChunkWithFreeSegments scan}: no release path ever has to notify the owner.
 */
final class ChunkList {
    /** How many chunks one refill may look at before it gives up and takes a fresh slab. */
    static final int SCAN_LIMIT = 8;

    private SizeClassChunk[] chunks = new SizeClassChunk[4];
    private int size;
    private int cursor;

    void add(SizeClassChunk chunk) {
        if (size == chunks.length) {
            chunks = Arrays.copyOf(chunks, size * 2);
        }
        chunk.listSlot = size;
        chunks[size++] = chunk;
    }

    void remove(SizeClassChunk chunk) {
        int slot = chunk.listSlot;
        assert chunks[slot] == chunk;
        SizeClassChunk last = chunks[--size];
        chunks[slot] = last;
        last.listSlot = slot;
        chunks[size] = null;
        chunk.listSlot = -1;
    }

    int size() {
        return size;
    }

    SizeClassChunk get(int index) {
        return chunks[index];
    }

    /**
     * Looks at up to {@link #SCAN_LIMIT} chunks from a rotating cursor, collecting their remote frees, and removes
     * and returns the one with the most free segments (stopping early at one at least a quarter free), or null if
     * none has any. A second entirely free chunk found on the way goes back to the slab pool.
     */
    SizeClassChunk takeChunkWithFreeSegments(Magazine magazine) {
        SizeClassChunk best = null;
        for (int looked = 0; looked < SCAN_LIMIT && size > 0; looked++) {
            if (cursor >= size) {
                cursor = 0;
            }
            SizeClassChunk chunk = chunks[cursor];
            chunk.drainRemote();
            if (best != null && best.isEntirelyFree() && chunk.isEntirelyFree()) {
                // One empty chunk is all a refill needs; further empty ones go back to the slab pool.
                remove(chunk);
                magazine.retire(chunk);
                continue;
            }
            if (best == null || chunk.freeCount > best.freeCount) {
                best = chunk;
            }
            cursor++;
            if (best.freeCount >= Math.max(1, best.segmentCount >> 2)) {
                break;
            }
        }
        if (best == null || best.freeCount == 0) {
            return null;
        }
        remove(best);
        return best;
    }

    /** Drains every chunk and returns the entirely free ones to the slab pool (trim). */
    void retireEntirelyFree(Magazine magazine) {
        for (int i = size - 1; i >= 0; i--) {
            SizeClassChunk chunk = chunks[i];
            chunk.drainRemote();
            if (chunk.isEntirelyFree()) {
                remove(chunk);
                magazine.retire(chunk);
            }
        }
    }
}
