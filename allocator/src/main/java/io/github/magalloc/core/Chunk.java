package io.github.magalloc.core;

import io.github.magalloc.buffer.BufferMemory;
import io.github.magalloc.buffer.Slab;

/** Memory of one pool that buffers are cut from: size-classed, large (page runs) or huge (one buffer). */
abstract class Chunk extends BufferMemory {
    final PoolContext context;

    Chunk(Slab slab, PoolContext context) {
        super(slab);
        this.context = context;
    }
}
