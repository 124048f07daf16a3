package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

/** Memory for one buffer above the pooling limit: allocated for it alone and freed when it is released. */
final class HugeChunk extends Chunk {
    private final ChunkSupply supply;

    HugeChunk(Slab slab, ChunkSupply supply) {
        super(slab, supply.context);
        this.supply = supply;
        linkToSlab();
    }

    @Override
    protected void release(MagByteBuf buf, long threadId) {
        supply.freeHugeSlab(slab);
    }
}
