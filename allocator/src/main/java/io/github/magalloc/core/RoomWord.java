package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One word of a magazine's room map over its large chunks ({@link LargeChunks}): bit {@code s % 64} stands for the
 * chunk in slot {@code s}. Under that chunk's lock, and only there, the bit is set exactly while the chunk is
 * attached and has a free page:
 * <pre>
 *   bit set  &lt;=&gt;  chunk attached && usedPageCount &lt; pageCount
 * </pre>
 * so the owner's first fit reads the words and looks only at chunks with room, not at every chunk's line. The bit
 * changes only when that changes: the owner's allocation that takes a chunk's last free page clears it, a release
 * that frees a page of a full chunk sets it, the detach clears it. Those writes are atomic read-modify-writes because
 * up to 64 chunks, each under its own lock, share a word; the chunk's lock orders the writes of one bit.
 */
final class RoomWord {
    private volatile long word;

    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(RoomWord.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The chunks with room, as of this read; the owner reads it without a chunk's lock, and a stale bit costs a look. */
    long lvWord() {
        return word;
    }

    /** The chunk's lock held: it has room now. */
    void setBit(long bit) {
        WORD.getAndBitwiseOr(this, bit);
    }

    /** The chunk's lock held: it has no room now, or it is detached. */
    void clearBit(long bit) {
        WORD.getAndBitwiseAnd(this, ~bit);
    }
}
