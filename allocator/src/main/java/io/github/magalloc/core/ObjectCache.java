package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.ObjectHome;

/**
 * A home that keeps released buffer objects for later allocations: where every buffer without a segment slot
 * (protocol 5 (buffer objects)) takes its object from and gives it back to. Two kinds, one rule: an object is
 * handed out again only where a stale reference to it cannot be in use.
 * <ul>
 *   <li>{@link BufferObjectCache}: one thread's, for that thread only (event loops' large and huge buffers, plain
 *       platform threads);</li>
 *   <li>{@link VirtualThreadObjects}: one stripe's, shared by the virtual threads that allocate from it.</li>
 * </ul>
 */
abstract class ObjectCache implements ObjectHome {
    /** A recycled object or a new one, handed out to the calling thread; the caller gives it its memory. */
    abstract MagByteBuf take();

    /** Whether {@code buf}, one of this home's objects, was handed out on the thread {@code threadId}. */
    abstract boolean handedOutOn(MagByteBuf buf, long threadId);
}
