package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.ObjectHome;

/**
 * The home of one thread magazine's size-classed buffer objects: the slot, in its chunk's
 * {@link SizeClassChunk#objects objects} table, of the segment whose memory the object holds. A released object
 * is already there, memory and all, and waits for the owner thread to hand the segment out again; so releasing
 * it has nothing left to do here (protocol 5 (buffer objects)). One per magazine, so that the owner's release can
 * tell its own objects, which it keeps for its next allocation ({@link ReleasedObjects}), from another thread's that
 * growth brought into its chunks.
 */
final class SegmentSlot implements ObjectHome {

    @Override
    public void recycle(MagByteBuf buf, long threadId) {
    }
}
