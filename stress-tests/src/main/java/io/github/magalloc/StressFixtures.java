package io.github.magalloc;

import io.netty.buffer.ByteBuf;

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
    private static final Field LARGE_CHUNKS = field("largeChunks");

    private StressFixtures() {
    }

    /** A fresh heap pool of its own, so counters observed by one test state are not shared with another. */
    static MemoryPool newPool() {
        return new MemoryPool(ALLOCATOR, false, CONFIG);
    }

    /**
     * A magazine owned by a thread that is never started: the test's "owner" actor plays that thread (it calls the
     * owner-only methods), the other actors release remotely, as threads that do not own it would.
     */
    static Magazine ownedMagazine(MemoryPool pool) {
        return Magazine.ofThread(pool, new Thread());
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

    /** The magalloc buffer object under leak-detection wrappers (or slices). */
    static MagByteBuf magByteBuf(ByteBuf buf) {
        ByteBuf b = buf;
        while (b.unwrap() != null) {
            b = b.unwrap();
        }
        return (MagByteBuf) b;
    }

    /** A buffer object standing for a live buffer that holds {@code segment} of {@code chunk}. */
    static MagByteBuf bufferHolding(MemoryPool pool, Chunk chunk, int segment) {
        MagByteBuf buf = newBufferObject(pool);
        buf.chunk = chunk;
        buf.segment = segment;
        return buf;
    }

    /** A large chunk of {@code pages} pages in a heap slab, all free, owned by a magazine of an unstarted thread. */
    static LargeChunk newLargeChunk(MemoryPool pool, int pages) {
        return pool.newLargeChunk(ownedMagazine(pool), Slab.heap(pages * LargeChunk.PAGE_SIZE));
    }

    /** A buffer object standing for a live buffer holding the first free run of {@code pages} pages of {@code chunk}. */
    static MagByteBuf largeBufferHolding(MemoryPool pool, LargeChunk chunk, int pages) {
        int runBytes = pages * LargeChunk.PAGE_SIZE;
        int offset = chunk.allocate(runBytes);
        if (offset < 0) {
            throw new IllegalStateException("no run of " + pages + " free pages");
        }
        MagByteBuf buf = newBufferObject(pool);
        buf.init(chunk, -1, offset, runBytes, runBytes, Integer.MAX_VALUE);
        return buf;
    }

    /** A large chunk of {@code pages} pages in a heap slab, all free, in {@code magazine}'s list of large chunks. */
    @SuppressWarnings("unchecked")
    static LargeChunk addLargeChunk(MemoryPool pool, Magazine magazine, int pages) {
        LargeChunk chunk = pool.newLargeChunk(magazine, Slab.heap(pages * LargeChunk.PAGE_SIZE));
        ((java.util.List<LargeChunk>) get(LARGE_CHUNKS, magazine)).add(chunk);
        return chunk;
    }

    /** Large chunks in {@code magazine}'s list; call when no other thread touches the magazine. */
    static int largeChunkCount(Magazine magazine) {
        return ((java.util.List<?>) get(LARGE_CHUNKS, magazine)).size();
    }

    /** Pages of {@code chunk} in use, as its count says; call when no other thread touches the chunk. */
    static int largePagesInUse(LargeChunk chunk) {
        return (int) get(field(LargeChunk.class, "usedPageCount"), chunk);
    }

    /** A new buffer object whose home is a cache of its own (owned by the calling thread). */
    static MagByteBuf newBufferObject(MemoryPool pool) {
        return pool.newBufferObject(new BufferObjectCache(pool, Thread.currentThread().getId()));
    }

    /**
     * Allocates from {@code magazine}, whose owner the caller plays (a thread magazine's thread, or a shared
     * magazine's lock holder), a buffer of the test chunks' size class.
     */
    static MagByteBuf allocate(MemoryPool pool, Magazine magazine) {
        if (magazine.objects != null) {
            return magazine.allocate(SIZE_CLASS, 100, Integer.MAX_VALUE);
        }
        MagByteBuf buf = newBufferObject(pool);
        if (magazine.tryAllocate(buf, SIZE_CLASS, 100, Integer.MAX_VALUE)) {
            return buf;
        }
        Slab slab = pool.allocateSlab(magazine.nextChunkSize(SIZE_CLASS));
        return magazine.allocateOnNewSlab(buf, SIZE_CLASS, 100, Integer.MAX_VALUE, slab);
    }

    /** Registers {@code magazine} as a live thread magazine of {@code pool}, as the pool does for a new thread. */
    @SuppressWarnings("unchecked")
    static void registerThreadMagazine(MemoryPool pool, Magazine magazine) {
        ((java.util.Set<Magazine>) get(field(MemoryPool.class, "liveThreadMagazines"), pool)).add(magazine);
    }

    /** Chunks retired (slabs given back) by {@code pool} so far. */
    static int retired(MemoryPool pool) {
        return (int) pool.metrics.slabsFreed.get();
    }

    /** True if every chunk in {@code magazine}'s partial lists has a free segment; call when no other thread touches it. */
    static boolean partialChunksHaveFreeSegments(Magazine magazine) {
        for (ChunkList list : (ChunkList[]) get(PARTIAL, magazine)) {
            for (SizeClassChunk chunk = list == null ? null : list.first(); chunk != null; chunk = chunk.next) {
                if (chunk.freeCount == 0) {
                    return false;
                }
            }
        }
        return true;
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
