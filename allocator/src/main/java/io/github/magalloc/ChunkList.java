package io.github.magalloc;

/**
 * A first-in first-out list of chunks, linked through the chunks themselves: O(1) add at the tail, take from the
 * head, and remove from anywhere. Owner only. A magazine keeps two per size class: chunks known to have free
 * segments (partial), and chunks that were full when last looked at.
 *
 * <p>First in, first out matters for the partial list: a chunk joins it at its first free segment, so the chunk
 * that joined longest ago has had the most time to gather more. Taking the newest instead (a stack) handed the
 * magazine chunks with one free segment, and with 8,192 live buffers nearly every allocation became a refill.
 * mimalloc's page queues work the same way.
 */
final class ChunkList {
    private SizeClassChunk head;
    private SizeClassChunk tail;
    private int size;

    void add(SizeClassChunk chunk) {
        assert chunk.list == null;
        chunk.list = this;
        chunk.prev = tail;
        chunk.next = null;
        if (tail == null) {
            head = chunk;
        } else {
            tail.next = chunk;
        }
        tail = chunk;
        size++;
    }

    void remove(SizeClassChunk chunk) {
        assert chunk.list == this;
        SizeClassChunk prev = chunk.prev;
        SizeClassChunk next = chunk.next;
        if (prev == null) {
            head = next;
        } else {
            prev.next = next;
        }
        if (next == null) {
            tail = prev;
        } else {
            next.prev = prev;
        }
        chunk.list = null;
        chunk.prev = null;
        chunk.next = null;
        size--;
    }

    /** Removes and returns the chunk added first, or null. */
    SizeClassChunk pollFirst() {
        SizeClassChunk chunk = head;
        if (chunk != null) {
            remove(chunk);
        }
        return chunk;
    }

    /** The chunk added first, or null; iterate with {@link SizeClassChunk#next}. */
    SizeClassChunk first() {
        return head;
    }

    int size() {
        return size;
    }
}
