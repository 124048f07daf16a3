package io.github.magalloc.core;

import io.github.magalloc.buffer.BufferPool;
import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.ObjectHome;

/**
 * What every part of one pool reads and none changes: its settings, metrics and observer, its kind of memory, whether
 * it runs in debug mode, and the making of its buffer objects. Apart from the {@link ChunkSupply}, so that a chunk or
 * an object cache knows the pool's context without knowing where memory comes from.
 */
final class PoolContext {
    final PoolSettings settings;
    final PoolMetrics metrics = new PoolMetrics();
    final PoolEvents events;
    /** Direct memory, else heap. */
    final boolean direct;
    /** The pool whose buffer objects this makes, and whose debug mode every part asks. */
    private final BufferPool buffers;

    PoolContext(BufferPool buffers, boolean direct, PoolSettings settings, PoolEvents events) {
        this.buffers = buffers;
        this.direct = direct;
        this.settings = settings;
        this.events = events;
    }

    /** Debug mode (poisoned memory, no recycled objects, tracked segments): decided once, with the pool. */
    boolean isDebug() {
        return buffers.isDebug();
    }

    /** A new buffer object of the pool's kind, belonging to {@code home} for life. */
    MagByteBuf newBufferObject(ObjectHome home) {
        return MagByteBuf.newObject(buffers, home, direct);
    }
}
