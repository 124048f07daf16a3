package io.github.magalloc.core;

/**
 * A first-in first-out list of chunks, linked through the chunks themselves: O(1) add at the tail, take from the
 * head, and remove from anywhere. Owner only. A magazine keeps two per size class: chunks known to have free
 * segments (partial), and chunks that were full when last looked at. The links ({@link SizeClassChunk#list},
 * {@code prev}, {@code next}) are this class's: nothing else writes them, and a chunk is in a list exactly while
 * {@code list != null}.
 *
 * <p>First in, first out matters for the partial list: a chunk joins it at its first free segment, so the chunk
 * that joined longest ago has had the most time to gather more. A stack would hand the magazine the chunk with one
 * free segment that joined last, and with thousands of live buffers nearly every allocation would be a refill.
 * mimalloc's page queues work the same way.
 */
final class ChunkList {
    private SizeClassChunk head;
    private SizeClassChunk tail;
    private int size;

    void add(SizeClassChunk chunk) {
        assert chunk.list == null : "a chunk parked twice";
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
        assert chunk.list == this : "a chunk taken from a list it is not in";
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

    /** The chunk added first, or null; iterate with {@link SizeClassChunk#next}. */
    SizeClassChunk first() {
        return head;
    }

    int size() {
        return size;
    }
}
