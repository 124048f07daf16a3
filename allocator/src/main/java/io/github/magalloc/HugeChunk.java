package io.github.magalloc;

/** Memory for one buffer above the pooling limit: allocated for it alone and freed when it is released. */
final class HugeChunk extends Chunk {
    HugeChunk(Slab slab, MemoryPool pool) {
        super(slab, pool);
    }

    @Override
    void release(MagByteBuf buf, long threadId) {
        pool.freeHugeSlab(slab);
    }
}
