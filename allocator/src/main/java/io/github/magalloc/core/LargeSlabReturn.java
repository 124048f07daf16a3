package io.github.magalloc.core;

/**
 * Where the slab of a large chunk goes once no buffer uses it, and so how many empty large chunks a magazine keeps
 * as spares. Spares spare a trip for a new slab when the demand for large buffers moves: a request near the chunk
 * size fits only an empty chunk.
 */
enum LargeSlabReturn {
    /**
     * To the reuse pool, above its budget for one delay while large buffers swing ({@link LargeSlabMisses}): heap
     * slabs, each of which would otherwise be garbage for the GC, and direct slabs where freeing is not cheap
     * ({@link DirectMemoryRelease}: a handshake with every thread, or memory that waits for the GC and lowers nothing
     * until a collection, while each new chunk takes fresh memory). A spare given back costs only a trip through the
     * pool, so a magazine keeps up to a quarter of its large bytes in use, the lowest slots first (those the
     * first fit looks at first), and gives back the others as they empty: the next chunk takes its slab from the pool.
     */
    TO_REUSE_POOL(4, false, false),
    /**
     * To the system: direct slabs where Netty frees memory at once. A pool would keep what the last peak of large
     * buffers needed. Each trip to the system costs a new slab and its objects, so spares are chosen to make few:
     * the biggest first, which fit every request a smaller one fits, up to an eighth of the bytes in use (a smaller
     * share makes more trips for little less memory). A chunk beyond them that served an allocation in this decay
     * period stays until a tick finds it unused for a whole period: a level of large buffers that swings within a
     * period would otherwise take a new slab, with fresh pages to fault in, at each swing.
     */
    TO_SYSTEM(8, true, true);

    /** A magazine keeps empty large chunks up to 1/this of the bytes of its large chunks in use (at least one). */
    final int spareShare;
    /** Whether the spares kept are the biggest empty chunks (else those in the lowest slots). */
    final boolean biggestSparesFirst;
    /**
     * Whether an empty chunk beyond the spares that served an allocation since the last decay tick stays until a tick
     * finds it unused for a whole period (where ticks run), rather than going back as it empties.
     */
    final boolean keepsSparesServedThisPeriod;

    LargeSlabReturn(int spareShare, boolean biggestSparesFirst, boolean keepsSparesServedThisPeriod) {
        this.spareShare = spareShare;
        this.biggestSparesFirst = biggestSparesFirst;
        this.keepsSparesServedThisPeriod = keepsSparesServedThisPeriod;
    }

    static LargeSlabReturn of(boolean direct) {
        return direct && DirectMemoryRelease.HERE == DirectMemoryRelease.AT_ONCE ? TO_SYSTEM : TO_REUSE_POOL;
    }
}
