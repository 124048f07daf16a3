package io.github.magalloc.core;

/**
 * Where the slab of a large chunk goes once no buffer uses it, and so how many empty large chunks a magazine keeps
 * as spares. Spares spare a trip for a new slab when the demand for large buffers moves; a request near the chunk
 * size fits only an empty chunk, so without them the pinning benchmark made a new chunk every 37 operations.
 */
enum LargeSlabReturn {
    /**
     * To the reuse pool (within its budget): heap slabs, each of which would otherwise be garbage for the GC, and
     * direct slabs where freeing is not cheap ({@link DirectMemoryRelease}: on JDK 25 without native access, giving
     * large slabs back ran the pinning benchmark 11 times slower). A spare given back costs only a trip through the
     * pool, so a magazine keeps up to a quarter of its large bytes in use, the first-made chunks first.
     */
    TO_REUSE_POOL(4, false),
    /**
     * To the system: direct slabs where Netty frees memory at once. The pool would keep what the last peak of large
     * buffers needed, a third of all used memory in the pinning benchmark (used/live 2.07x pooled, 1.48x returned).
     * Each trip to the system costs a new slab and its objects (about 270 bytes of garbage), so spares are chosen
     * to make few: the biggest first, which fit every request a smaller one fits (2 new slabs per 1,000 operations
     * of that benchmark instead of 13), up to an eighth of the bytes in use (pinning benchmark, JDK 17, 3 forks per
     * run: 1.48x and 1.51x the live bytes at 0.58 B/op; a sixteenth 1.49x and 1.48x at 1.57 B/op, 15% slower).
     */
    TO_SYSTEM(8, true);

    /** A magazine keeps empty large chunks up to 1/this of the bytes of its large chunks in use (at least one). */
    final int spareShare;
    /** Whether the spares kept are the biggest empty chunks (else the first made). */
    final boolean biggestSparesFirst;

    LargeSlabReturn(int spareShare, boolean biggestSparesFirst) {
        this.spareShare = spareShare;
        this.biggestSparesFirst = biggestSparesFirst;
    }

    static LargeSlabReturn of(boolean direct) {
        return direct && DirectMemoryRelease.IS_CHEAP ? TO_SYSTEM : TO_REUSE_POOL;
    }
}
