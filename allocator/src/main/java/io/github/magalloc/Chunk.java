package io.github.magalloc;

/** Memory that buffers are cut from; knows how to take a buffer's memory back. */
abstract class Chunk {
    final Slab slab;
    final MemoryPool pool;

    Chunk(Slab slab, MemoryPool pool) {
        this.slab = slab;
        this.pool = pool;
    }

    /**
     * Takes back the memory of {@code buf}, whose reference count reached zero. {@code threadId} is the id of the
     * calling thread, read once by the caller, which then recycles {@code buf}.
     */
    abstract void release(MagByteBuf buf, long threadId);
}
