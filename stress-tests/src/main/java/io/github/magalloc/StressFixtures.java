package io.github.magalloc;

import java.lang.reflect.Field;

/**
 * Test-only setup for the jcstress tests: builds the package-private pieces (pools, magazines, tiny chunks) in a
 * chosen state, so that each test races exactly one protocol step. Lives in the allocator's package (split
 * package on the class path) and reaches a few private fields of {@link Magazine} and {@link MemoryPool} by
 * reflection; nothing here is used by the allocator itself.
 */
final class StressFixtures {
    /** Slab pool budget 0: every retired chunk's slab is freed at once, so {@code slabsFreed} counts retirements. */
    static final MagazineAllocatorConfig CONFIG = MagazineByteBufAllocator.builder()
        .reuseBudgetBytes(0)
        .sharedMagazines(2)
        .sharedBufferObjects(2)
        .maxLargeChunkSize(SizeClasses.MAX_CHUNK_SIZE)
        .maxPooledSize(SizeClasses.MAX_CHUNK_SIZE)
        .config();
    static final MagazineByteBufAllocator ALLOCATOR = new MagazineByteBufAllocator(CONFIG);
    /** Size class of the tiny test chunks: 1,024-byte segments. */
    static final int SIZE_CLASS = SizeClasses.indexOf(1024);
    static final int SEGMENT_SIZE = SizeClasses.sizeOf(SIZE_CLASS);

    private static final Field CURRENT = field("current");
    private static final Field PARTIAL = field("partial");
    private static final Field FULL = field("full");

    private StressFixtures() {
    }

    /** A fresh heap pool of its own, so counters observed by one test state are not shared with another. */
    static MemoryPool newPool() {
        return new MemoryPool(ALLOCATOR, false, CONFIG);
    }

    /** A chunk of {@code segments} 1,024-byte segments in a small heap slab, all of them free. */
    static SizeClassChunk newChunk(MemoryPool pool, Magazine magazine, int segments) {
        return new SizeClassChunk(Slab.heap(segments * SEGMENT_SIZE), pool, magazine, SIZE_CLASS);
    }

    /**
     * Puts {@code chunk} among its magazine's non-current chunks, where refills and trims find it: in the full list
     * when it has no free segment, else in the partial list (as the magazine itself would).
     */
    static ChunkList addToOthers(Magazine magazine, SizeClassChunk chunk) {
        ChunkList[] lists = (ChunkList[]) get(chunk.freeCount == 0 ? FULL : PARTIAL, magazine);
        if (lists[chunk.sizeClass] == null) {
            lists[chunk.sizeClass] = new ChunkList();
        }
        chunk.current = false;
        lists[chunk.sizeClass].add(chunk);
        return lists[chunk.sizeClass];
    }

    /** Makes {@code chunk} its magazine's current chunk for its size class. */
    static void makeCurrent(Magazine magazine, SizeClassChunk chunk) {
        ((SizeClassChunk[]) get(CURRENT, magazine))[chunk.sizeClass] = chunk;
        chunk.current = true;
    }

    /** A buffer object standing for a live buffer that holds {@code segment} of {@code chunk}. */
    static MagByteBuf bufferHolding(MemoryPool pool, Chunk chunk, int segment) {
        MagByteBuf buf = new HeapMagByteBuf(pool);
        buf.chunk = chunk;
        buf.segment = segment;
        return buf;
    }

    /** Registers {@code magazine} as a live thread magazine of {@code pool}, as the pool does for a new thread. */
    @SuppressWarnings("unchecked")
    static void registerThreadMagazine(MemoryPool pool, Magazine magazine) {
        ((java.util.Set<Magazine>) get(field(MemoryPool.class, "liveThreadMagazines"), pool)).add(magazine);
    }

    /** Chunks of {@code sizeClass} held by all of the pool's shared magazines. */
    static int sharedChunks(MemoryPool pool, int sizeClass) {
        int chunks = 0;
        for (Magazine stripe : (Magazine[]) get(field(MemoryPool.class, "stripes"), pool)) {
            chunks += stripe.chunkCount(sizeClass);
        }
        return chunks;
    }

    /** Chunks retired (slabs given back) by {@code pool} so far. */
    static int retired(MemoryPool pool) {
        return (int) pool.metrics.slabsFreed.get();
    }

    /** Free segments the chunk accounts for: local list plus values queued by other threads. */
    static int accountedFree(SizeClassChunk chunk) {
        return chunk.freeCount + chunk.remoteFrees.size();
    }

    private static Field field(String name) {
        return field(Magazine.class, name);
    }

    private static Field field(Class<?> type, String name) {
        try {
            Field f = type.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static Object get(Field field, Object target) {
        try {
            return field.get(target);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
