package io.github.magalloc.buffer;

import java.lang.ref.WeakReference;

/**
 * The memory a buffer is cut from: a slab, and the rule that takes a released buffer's part of it back. The
 * allocator's chunks extend it; a buffer calls {@link #release} once, when its reference count reaches zero.
 */
public abstract class BufferMemory {
    /** The slab this memory is part of; buffers cut from this memory are windows of it. */
    public final Slab slab;

    /**
     * Memory on {@code slab}; the maker calls {@link #linkToSlab()} once the object is complete.
     *
     * @param slab the slab buffers are cut from, not null
     */
    protected BufferMemory(Slab slab) {
        this.slab = slab;
    }

    /**
     * Links the slab to this memory (weakly), for the live bytes an error's report asks for; called by the maker once
     * the memory is made, so that no half-made object is linked.
     */
    public final void linkToSlab() {
        slab.cutBy = new WeakReference<>(this);
    }

    /**
     * Bytes of the live buffers cut from this memory now, for an error's report: read without synchronization, so
     * a snapshot that may be off by the buffers allocated or released meanwhile. The whole slab unless a kind says.
     *
     * @return the bytes, from 0 to the slab's size
     */
    public long liveBufferBytes() {
        return slab.size;
    }

    /**
     * Takes back the memory of {@code buf}, whose reference count reached zero. {@code threadId} is the id of the
     * calling thread, read once by the caller, which then sends {@code buf} to its {@link ObjectHome}.
     *
     * @param buf the released buffer, still holding this memory
     * @param threadId {@link Thread#getId()} of the calling thread
     */
    protected abstract void release(MagByteBuf buf, long threadId);
}
