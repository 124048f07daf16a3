package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

/**
 * Debug mode's check that memory nobody holds was not written: freed memory is poisoned ({@link MagByteBuf#POISON})
 * and new slabs are poisoned whole, so memory about to be handed out is poison throughout unless something wrote it
 * after it was freed: a stale buffer, or a slice or duplicate taken before its buffer shrank or moved (derived buffers
 * write through their buffer's current memory at their own, older bounds: protocol 6a (shrinking)). Such a write into
 * memory that another buffer holds cannot be told from that buffer's own; one into free memory is caught here, at
 * the hand-out. Cold: debug mode only, one pass over the memory handed out.
 */
final class DebugMemory {
    private DebugMemory() {
    }

    /**
     * Throws, naming the first byte, if {@code length} bytes of {@code slab} from {@code offset} are not all poison;
     * poisons them again first, so the memory stays usable and the next hand-out does not report the same write.
     */
    static void checkUnwrittenSinceFreed(Slab slab, int offset, int length) {
        int written = slab.firstNot(offset, length, MagByteBuf.POISON);
        if (written >= 0) {
            slab.fill(offset, length, MagByteBuf.POISON);
            throw new IllegalStateException("magalloc debug: byte " + (written - offset) + " of " + length
                + " bytes of freed memory was written after it was freed (offset " + offset + " of a " + slab.size
                + "-byte slab): a stale buffer, or a slice or duplicate used after its buffer shrank or moved");
        }
    }
}
