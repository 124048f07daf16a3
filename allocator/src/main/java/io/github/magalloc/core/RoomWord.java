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
 *
 * <p>Padded before and after ({@link CacheLinePadding}'s rule): releasers on other threads write the word while the
 * owner reads it at every large allocation, and the owner's own fields (its chunk list, made right before the first
 * word) must not share its line.
 */
final class RoomWord extends RoomWordField {
    byte q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015;
    byte q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111, q112, q113, q114, q115;
    byte q200, q201, q202, q203, q204, q205, q206, q207, q208, q209, q210, q211, q212, q213, q214, q215;
    byte q300, q301, q302, q303, q304, q305, q306, q307, q308, q309, q310, q311, q312, q313, q314, q315;
    byte q400, q401, q402, q403, q404, q405, q406, q407, q408, q409, q410, q411, q412, q413, q414, q415;
    byte q500, q501, q502, q503, q504, q505, q506, q507, q508, q509, q510, q511, q512, q513, q514, q515;
    byte q600, q601, q602, q603, q604, q605, q606, q607, q608, q609, q610, q611, q612, q613, q614, q615;
    byte q700, q701, q702, q703, q704, q705, q706, q707, q708, q709, q710, q711, q712, q713, q714, q715;
}

/** The word, after the leading padding. */
abstract class RoomWordField extends CacheLinePadding {
    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(RoomWordField.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long word;

    /** The chunks with room, as of this read; the owner reads it without a chunk's lock, and a stale bit costs a look. */
    final long lvWord() {
        return word;
    }

    /** The chunk's lock held: it has room now. */
    final void setBit(long bit) {
        WORD.getAndBitwiseOr(this, bit);
    }

    /** The chunk's lock held: it has no room now, or it is detached. */
    final void clearBit(long bit) {
        WORD.getAndBitwiseAnd(this, ~bit);
    }
}
