package io.github.magalloc.buffer;

import io.netty.buffer.ByteBufAllocator;

/**
 * What a buffer asks of the pool it came from: the allocator it reports as {@code alloc()}, whether freed memory
 * is poisoned, and new memory when it grows beyond what it reserved. An abstract class rather than an interface so
 * that the release path reads {@link #debug} as a field.
 */
public abstract class BufferPool {
    final ByteBufAllocator allocator;
    /** Freed memory is poisoned before it goes back, so a stale access reads garbage instead of live data. */
    final boolean debug;

    /**
     * Debug mode: decided once, when the pool is made; every part of the pool asks here.
     *
     * @return true if freed memory is poisoned and buffer objects are not recycled
     */
    public final boolean isDebug() {
        return debug;
    }

    /**
     * The allocator buffers of this pool report as {@code alloc()}.
     *
     * @return the allocator this pool belongs to
     */
    public final ByteBufAllocator allocator() {
        return allocator;
    }

    /**
     * A pool of {@code allocator}'s.
     *
     * @param allocator the allocator its buffers report as {@code alloc()}
     * @param debug whether freed memory is poisoned and buffer objects are not recycled
     */
    protected BufferPool(ByteBufAllocator allocator, boolean debug) {
        this.allocator = allocator;
        this.debug = debug;
    }

    /**
     * Moves {@code buf} to memory of at least {@code newCapacity} bytes, keeping its first
     * {@code min(capacity, newCapacity)} bytes; {@code buf}'s old memory is freed after the copy.
     *
     * @param buf the buffer that grows, above its reserved bytes
     * @param newCapacity the capacity it needs, in bytes
     */
    protected abstract void reallocate(MagByteBuf buf, int newCapacity);

    /**
     * Gives back what {@code buf}'s memory holds beyond {@code newCapacity} (at most half its reserved bytes) where
     * that saves at least half, keeping its first {@code newCapacity} bytes; else keeps the memory as it is.
     *
     * @param buf the buffer that shrinks
     * @param newCapacity its new capacity in bytes, at most half its reserved bytes
     */
    protected abstract void shrink(MagByteBuf buf, int newCapacity);
}
