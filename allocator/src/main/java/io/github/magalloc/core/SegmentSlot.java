package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.ObjectHome;

/**
 * The home of a thread magazine's size-classed buffer objects: the slot, in its chunk's
 * {@link SizeClassChunk#objects objects} table, of the segment whose memory the object holds. A released object
 * is already there, memory and all, and waits for the owner thread to hand the segment out again; so releasing
 * it has nothing left to do (protocol 5 (buffer objects)).
 */
final class SegmentSlot implements ObjectHome {
    static final SegmentSlot HOME = new SegmentSlot();

    private SegmentSlot() {
    }

    @Override
    public void recycle(MagByteBuf buf, long threadId) {
    }
}
