package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;
import io.netty.buffer.ByteBuf;

import java.lang.reflect.Field;
import java.util.Set;

/**
 * Test-only setup for the jcstress tests: builds the core's package-private pieces (pools, magazines, tiny chunks)
 * in a chosen state, so that each test races exactly one protocol step. Lives in the core's package (split package
 * on the class path) and goes through the magazines' own methods, so their invariants hold from the start; it
 * reaches a few private fields by reflection only to look. Nothing here is used by the allocator itself.
 */
final class StressFixtures {
    /** Reuse pool budget 0: every retired chunk's slab is freed at once, so {@code slabsFreed} counts retirements. */
    static final PoolSettings SETTINGS = new PoolSettings(0, SizeClasses.MAX_CHUNK_SIZE, SizeClasses.MAX_CHUNK_SIZE,
        2, false, 0, 0, false);
    static final MagazineByteBufAllocator ALLOCATOR = MagazineByteBufAllocator.builder().build();
    /** Size class of the tiny test chunks: 1,024-byte segments. */
    static final int SIZE_CLASS = SizeClasses.indexOf(1024);
    static final int SEGMENT_SIZE = SizeClasses.sizeOf(SIZE_CLASS);

    private StressFixtures() {
    }

    /** An object from a stripe's virtual threads' {@code home}, taken as a stripe does: holding its {@code lock}. */
    static MagByteBuf take(VirtualThreadObjects home, PaddedSpinLock lock) {
        lock.lock();
        try {
            return home.take();
        } finally {
            lock.unlock();
        }
    }

    /** A fresh heap pool of its own, so counters observed by one test state are not shared with another. */
    static MemoryPool newPool() {
        return new MemoryPool(ALLOCATOR, false, SETTINGS, PoolEvents.NONE);
    }

    /** A pool of its own in debug mode (poisoned memory, objects never reused), reporting {@code allocator}. */
    static MemoryPool newDebugPool(MagazineByteBufAllocator allocator, boolean direct) {
        PoolSettings debug = new PoolSettings(SETTINGS.reuseBudgetBytes(), SETTINGS.maxPooledSize(),
            SETTINGS.maxLargeChunkSize(), SETTINGS.sharedMagazines(), false, 0, 0, true);
        return new MemoryPool(allocator, direct, debug, PoolEvents.NONE);
    }

    /**
     * A magazine owned by a thread that is never started: the test's "owner" actor plays that thread (it calls the
     * owner-only methods), the other actors release remotely, as threads that do not own it would.
     */
    static ThreadMagazine ownedMagazine(MemoryPool pool) {
        return new ThreadMagazine(pool.supply(), new Thread());
    }

    /** A chunk of {@code segments} 1,024-byte segments in a small heap slab, all of them free. */
    static SizeClassChunk newChunk(MemoryPool pool, Magazine magazine, int segments) {
        return new SizeClassChunk(slab(pool, segments * SEGMENT_SIZE), pool.supply().context, magazine, SIZE_CLASS);
    }

    /**
     * A heap slab of {@code size} bytes taken from {@code pool}'s own slab source, as the supply takes one: the source
     * frees (and counts in {@code slabsFreed}) only the slabs it handed out.
     */
    static Slab slab(MemoryPool pool, int size) {
        return ((SlabSource) get(field(ChunkSupply.class, "slabs"), pool.supply())).tryTake(size, true, null);
    }

    /** Makes {@code chunk} (all free, in no list) its magazine's current chunk, parking the one it replaces. */
    static void makeCurrent(Magazine magazine, SizeClassChunk chunk) {
        magazine.makeCurrent(chunk);
    }

    /** Parks {@code chunk} (in no list, not current) among its magazine's other chunks, as the magazine would. */
    static void park(Magazine magazine, SizeClassChunk chunk) {
        magazine.park(chunk);
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
    static MagByteBuf bufferHolding(MemoryPool pool, SizeClassChunk chunk, int segment) {
        MagByteBuf buf = newBufferObject(pool);
        buf.setMemory(chunk, segment, chunk.offsetOf(segment), chunk.segmentSize);
        return buf;
    }

    /**
     * A large chunk of {@code pages} pages in a heap slab, all free, owned by a magazine of an unstarted thread but not
     * in its list (alone in a room word of its own), counted as a magazine's {@code LargeChunks} counts it.
     */
    static LargeChunk newLargeChunk(MemoryPool pool, int pages) {
        pool.supply().context.metrics.largeChunkCreated();
        return new LargeChunk(slab(pool, pages * LargeChunk.PAGE_SIZE), pool.supply(), ownedMagazine(pool), 0,
            new RoomWord());
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

    /** A buffer object standing for a live buffer on the page at {@code offset} of {@code chunk}, to read it. */
    static MagByteBuf largeBufferAt(MemoryPool pool, LargeChunk chunk, int offset) {
        MagByteBuf buf = newBufferObject(pool);
        buf.init(chunk, -1, offset, LargeChunk.PAGE_SIZE, LargeChunk.PAGE_SIZE, Integer.MAX_VALUE);
        return buf;
    }

    /** A large chunk of {@code pages} pages in a heap slab, all free, in {@code magazine}'s list of large chunks. */
    static LargeChunk addLargeChunk(MemoryPool pool, Magazine magazine, int pages) {
        pool.supply().context.metrics.largeChunkCreated();
        return largeChunksIn(magazine).add(slab(pool, pages * LargeChunk.PAGE_SIZE));
    }

    /** Lets go of {@code chunk} as its magazine does ({@link LargeChunks}): its slab goes back if no buffer uses it. */
    static void detach(LargeChunk chunk) {
        if (chunk.detach()) {
            chunk.magazine.giveBack().largeChunk(chunk.slab);
        }
    }

    /** Large chunks in {@code magazine}'s list; call when no other thread touches the magazine. */
    static int largeChunkCount(Magazine magazine) {
        return largeChunksIn(magazine).chunkCount();
    }

    /** The large chunks of {@code magazine} (a thread magazine or a stripe). */
    static LargeChunks largeChunksIn(Magazine magazine) {
        return (LargeChunks) get(field(magazine.getClass(), "large"), magazine);
    }

    /** Pages of {@code chunk} in use, as its count says; call when no other thread touches the chunk. */
    static int largePagesInUse(LargeChunk chunk) {
        return (int) get(field(LargeChunk.class, "usedPageCount"), chunk);
    }

    /** A new buffer object whose home is a cache of its own (owned by the calling thread). */
    static MagByteBuf newBufferObject(MemoryPool pool) {
        return pool.supply().context.newBufferObject(new BufferObjectCache(pool.supply().context, Thread.currentThread().getId()));
    }

    /**
     * Allocates a buffer of the test chunks' size class from {@code magazine}, whose owner the caller plays: a
     * thread magazine's thread, or the holder of a stripe's lock (which the caller must hold).
     */
    static MagByteBuf allocate(MemoryPool pool, Magazine magazine) {
        if (magazine instanceof ThreadMagazine) {
            return ((ThreadMagazine) magazine).allocate(SIZE_CLASS, 100, Integer.MAX_VALUE);
        }
        Stripe stripe = (Stripe) magazine;
        MagByteBuf buf = newBufferObject(pool);
        if (stripe.allocate(buf, SIZE_CLASS, 100, Integer.MAX_VALUE, null, true)) {
            return buf;
        }
        Slab slab = pool.supply().allocateSlab(stripe.nextChunkSize(SIZE_CLASS));
        stripe.allocate(buf, SIZE_CLASS, 100, Integer.MAX_VALUE, slab, true);
        return buf;
    }

    /** {@link #allocate} from a stripe whose lock nobody holds (a test's setup): takes the lock for it. */
    static MagByteBuf allocateTakingLock(MemoryPool pool, Stripe stripe) {
        stripe.lock();
        try {
            return allocate(pool, stripe);
        } finally {
            stripe.unlock();
        }
    }

    /** Registers {@code magazine} as a live thread magazine of {@code pool}, as the pool does for a new thread. */
    @SuppressWarnings("unchecked") // the field's declared type
    static void registerThreadMagazine(MemoryPool pool, ThreadMagazine magazine) {
        ((Set<ThreadMagazine>) get(field(ThreadMagazines.class, "live"), pool.threads())).add(magazine);
    }

    /** Whether the lock of an ended magazine's hand-over is free (it takes and gives it back to find out). */
    static boolean endedLockIsFree(ThreadMagazine magazine) {
        EndedMagazine ended = (EndedMagazine) get(field(ThreadMagazine.class, "ended"), magazine);
        PaddedSpinLock lock = (PaddedSpinLock) get(field(EndedMagazine.class, "lock"), ended);
        if (!lock.tryLock()) {
            return false;
        }
        lock.unlock();
        return true;
    }

    /** Chunks retired (slabs given back) by {@code pool} so far. */
    static int retired(MemoryPool pool) {
        return (int) pool.metrics().slabsFreed();
    }

    /** True if every chunk in {@code magazine}'s partial lists has a free segment; call when no other thread touches it. */
    static boolean partialChunksHaveFreeSegments(Magazine magazine) {
        ParkedChunks parked = (ParkedChunks) get(field(Magazine.class, "parked"), magazine);
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            ChunkList list = parked.partialIfMade(sizeClass);
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

    /** Whether {@code chunk} is its magazine's current chunk; call when no other thread touches the magazine. */
    static boolean isCurrent(SizeClassChunk chunk) {
        Magazine magazine = chunk.lpMagazine();
        return magazine != null && magazine.current(chunk.sizeClass) == chunk;
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
