package io.github.magalloc;

import java.util.Arrays;

/**
 * An unordered array of chunks with O(1) add, remove (the chunk remembers its slot) and take-last. Owner only.
 * A magazine keeps two per size class: chunks known to have free segments, and chunks that were full when last
 * looked at.
 */
final class ChunkList {
    private SizeClassChunk[] chunks = new SizeClassChunk[4];
    private int size;

    void add(SizeClassChunk chunk) {
        if (size == chunks.length) {
            chunks = Arrays.copyOf(chunks, size * 2);
        }
        chunk.list = this;
        chunk.listSlot = size;
        chunks[size++] = chunk;
    }

    void remove(SizeClassChunk chunk) {
        assert chunk.list == this && chunks[chunk.listSlot] == chunk;
        int slot = chunk.listSlot;
        SizeClassChunk last = chunks[--size];
        chunks[slot] = last;
        last.listSlot = slot;
        chunks[size] = null;
        chunk.list = null;
        chunk.listSlot = -1;
    }

    /** Removes and returns the chunk added last (the most recently used one), or null. */
    SizeClassChunk pollLast() {
        if (size == 0) {
            return null;
        }
        SizeClassChunk chunk = chunks[size - 1];
        remove(chunk);
        return chunk;
    }

    int size() {
        return size;
    }

    SizeClassChunk get(int index) {
        return chunks[index];
    }
}
