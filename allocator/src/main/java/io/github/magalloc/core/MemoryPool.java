package io.github.magalloc.core;

import io.github.magalloc.buffer.BufferPool;
import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.ObjectHome;
import io.github.magalloc.buffer.Slab;
import io.netty.buffer.ByteBufAllocator;

/**
 * Everything magalloc keeps for one kind of memory (heap or direct), and the entry of every allocation: a request
 * up to the largest size class goes to the calling thread's own magazine ({@link ThreadMagazines}) or to a stripe
 * ({@link Stripes}); above it, to the same magazine's large chunks; above {@code maxPooledSize}, to memory of its
 * own ({@link HugeChunk}). Also the chunks' and slabs' way in and out: the {@link ReusePool} first, then the
 * system ({@link SlabSource}), with one retry after giving back what is free when memory is exhausted.
 */
public final class MemoryPool extends BufferPool {
    /**
     * Largest capacity a buffer grows to with room reserved for its next doubling ({@link #reservationForGrowth}):
     * so a grown buffer holds about 8 KiB it did not ask for at most, and growth stays within the size classes.
     */
    static final int GROWTH_RESERVE_LIMIT = 8 * 1024;

    static {
        ClassesLoadedAhead.loadAndInitialize();
    }

    final PoolMetrics metrics = new PoolMetrics();
    final PoolEvents events;
    private final PoolSettings settings;
    private final boolean direct;
    private final ReusePool reuse;
    private final ReuseExcess reuseExcess;
    /** Where empty large-chunk slabs go: the reuse pool, or the system where that is cheap. */
    private final LargeSlabReturn largeSlabReturn;
    private final SlabSource slabs;
    /** What freeing a slab asks for: a trim of the C heap, or nothing (protocol 3b (resident memory)). */
    private final NativeTrim nativeTrim;
    private final ThreadMagazines threads;
    private final Stripes stripes;

    public MemoryPool(ByteBufAllocator allocator, boolean direct, PoolSettings settings, PoolEvents events) {
        super(allocator, settings.debug());
        this.settings = settings;
        this.direct = direct;
        this.events = events;
        this.largeSlabReturn = LargeSlabReturn.of(direct);
        this.reuse = new ReusePool(settings.reuseBudgetBytes(), reuseCeiling(settings),
            Math.max(SizeClasses.MAX_CHUNK_SIZE, settings.maxLargeChunkSize()));
        this.reuseExcess = new ReuseExcess(reuse, this::freeSlab, BackgroundThread.SCHEDULER,
            settings.decayMillis());
        this.nativeTrim = nativeTrim(direct, settings);
        this.slabs = new SlabSource(direct, metrics, events, nativeTrim);
        this.threads = new ThreadMagazines(this, settings.threadLocalMagazinesForAllThreads());
        this.stripes = new Stripes(this, settings.sharedMagazines());
    }

    /**
     * Twice the budget, so that a wave of empty chunks up to the budget's size above it waits {@code decayMillis}
     * for the next wave instead of going to the system; just the budget when decay is off, since nothing would give
     * the excess back on time.
     */
    private static long reuseCeiling(PoolSettings settings) {
        long budget = settings.reuseBudgetBytes();
        return settings.decayMillis() > 0 ? budget + Math.min(budget, Long.MAX_VALUE - budget) : budget;
    }

    /**
     * Direct memory freed goes back to the C allocator, whose heap is then trimmed (protocol 3b (resident memory));
     * heap memory goes to the garbage collector, which no trim concerns.
     */
    private static NativeTrim nativeTrim(boolean direct, PoolSettings settings) {
        return direct && settings.nativeTrimMillis() > 0
            ? new RateLimitedNativeTrim(settings.nativeTrimMillis())
            : NativeTrim.NONE;
    }

    // ------------------------------------------------------------------ allocation

    public MagByteBuf allocate(int initialCapacity, int maxCapacity) {
        if (initialCapacity <= SizeClasses.MAX_SIZE) {
            int sizeClass = SizeClasses.indexOf(initialCapacity);
            ThreadMagazine magazine = threads.current();
            if (magazine != null) {
                return magazine.allocate(sizeClass, initialCapacity, maxCapacity);
            }
            return stripes.allocate(sizeClass, initialCapacity, maxCapacity);
        }
        return allocateAboveSizeClasses(initialCapacity, maxCapacity);
    }

    private MagByteBuf allocateAboveSizeClasses(int initialCapacity, int maxCapacity) {
        ThreadMagazine magazine = threads.current();
        if (initialCapacity > settings.maxPooledSize()) {
            return allocateHuge(magazine != null ? magazine.objects.take() : stripes.takeObject(),
                initialCapacity, maxCapacity);
        }
        if (magazine != null) {
            return magazine.allocateLarge(initialCapacity, maxCapacity);
        }
        return stripes.allocate(Stripes.ABOVE_SIZE_CLASSES, initialCapacity, maxCapacity);
    }

    private MagByteBuf allocateHuge(MagByteBuf buf, int initialCapacity, int maxCapacity) {
        Slab slab = allocateSlab(initialCapacity, false);
        metrics.hugeBufferAllocated(slab.size);
        buf.init(new HugeChunk(slab, this), -1, 0, slab.size, initialCapacity, maxCapacity);
        return buf;
    }

    /** Moves {@code buf} to memory of at least {@code newCapacity} bytes, with room to grow on ({@link #moveTo}). */
    @Override
    protected void reallocate(MagByteBuf buf, int newCapacity) {
        moveTo(buf, reservationForGrowth(buf, newCapacity), 0, Math.min(buf.capacity(), newCapacity));
    }

    /**
     * The shrink's rule (protocol 6a (shrinking)): memory is given back only where at most half of what {@code buf}
     * reserves holds {@code newCapacity}. A large buffer keeps a run of its pages in place, with no copy, where the
     * run wastes at most a quarter of {@code newCapacity} (always so above the size classes); any other buffer moves
     * to the smallest memory that holds {@code newCapacity}, with its first {@code newCapacity} bytes (Netty's
     * contract: a shrink truncates the content).
     */
    @Override
    protected void shrink(MagByteBuf buf, int newCapacity) {
        int half = buf.reservedBytes() >>> 1;
        if (buf.memory() instanceof LargeChunk) {
            int run = LargeChunk.runBytes(Math.max(1, newCapacity));
            if (run <= half && run - newCapacity <= newCapacity >>> 2) {
                ((LargeChunk) buf.memory()).shrink(buf, run);
                return;
            }
        }
        if (bytesFor(newCapacity) <= half) {
            moveTo(buf, newCapacity, 0, newCapacity);
        }
    }

    /** Bytes a buffer of {@code capacity} takes: its size class, whole pages, or, above the pooling limit, itself. */
    private int bytesFor(int capacity) {
        if (capacity <= SizeClasses.MAX_SIZE) {
            return SizeClasses.sizeOf(SizeClasses.indexOf(capacity));
        }
        return capacity <= settings.maxPooledSize() ? LargeChunk.runBytes(capacity) : capacity;
    }

    /**
     * Moves {@code buf} to new memory of {@code capacity} bytes, keeping its {@code bytes} bytes from {@code index}:
     * allocate, copy, then free the old memory (in that order, so a failed allocation loses nothing and no byte is
     * read from freed memory). The old memory goes back through the temporary object the new memory came with,
     * without the reference count's CAS: no other code has seen that object.
     */
    private void moveTo(MagByteBuf buf, int capacity, int index, int bytes) {
        MagByteBuf fresh = allocate(capacity, buf.maxCapacity());
        buf.copyContentTo(fresh, index, bytes);
        buf.swapMemory(fresh);
        swapSegmentSlots(buf, fresh);
        fresh.freeUnshared();
    }

    /**
     * Bytes to reserve for {@code buf} growing to {@code newCapacity}: twice that, up to
     * {@link #GROWTH_RESERVE_LIMIT}, so that the next doubling of {@code ensureWritable} (Netty's
     * {@code calculateNewCapacity} doubles up to 4 MiB) fits in place and a growing buffer moves every other time
     * only. Never beyond the buffer's max capacity, whose memory could not be used.
     */
    private static int reservationForGrowth(MagByteBuf buf, int newCapacity) {
        if (newCapacity > GROWTH_RESERVE_LIMIT) {
            return newCapacity;
        }
        // max: with Netty's -Dio.netty.buffer.checkBounds=false, capacity(n) does not check n against maxCapacity,
        // and the new memory must still hold n bytes.
        return Math.max(newCapacity, Math.min(2 * newCapacity, buf.maxCapacity()));
    }

    /**
     * After {@code grown} and {@code fresh} swapped memory: if both are segments' own objects and both chunks are
     * owned by the calling thread's magazine, each object takes the slot of the segment it now holds (so growth
     * makes no garbage). Both or neither: an object must stay with chunks of the thread that hands it out.
     */
    private static void swapSegmentSlots(MagByteBuf grown, MagByteBuf fresh) {
        if (grown.home() != SegmentSlot.HOME || fresh.home() != SegmentSlot.HOME
            || !(grown.memory() instanceof SizeClassChunk) || !(fresh.memory() instanceof SizeClassChunk)) {
            return;
        }
        SizeClassChunk grownInto = (SizeClassChunk) grown.memory();
        SizeClassChunk movedFrom = (SizeClassChunk) fresh.memory();
        long threadId = Thread.currentThread().getId();
        // Both chunks hold a live buffer's segment, so neither can be retired meanwhile: their magazines are fixed.
        if (grownInto.lpMagazine().lvOwnerThreadId() == threadId
            && movedFrom.lpMagazine().lvOwnerThreadId() == threadId) {
            grownInto.rebind(grown.segment(), fresh, grown);
            movedFrom.rebind(fresh.segment(), grown, fresh);
        }
    }

    /** A new buffer object of this pool's kind, belonging to {@code home} for life. */
    MagByteBuf newBufferObject(ObjectHome home) {
        return MagByteBuf.newObject(this, home, direct);
    }

    // ------------------------------------------------------------------ chunks

    /**
     * A chunk for {@code sizeClass} owned by {@code magazine} from the reuse pool: an empty chunk of the class as it
     * is, else a new chunk on a pooled slab; null if the pool has neither.
     */
    SizeClassChunk takePooledChunk(Magazine magazine, int sizeClass) {
        SizeClassChunk chunk = reuse.pollChunk(sizeClass);
        if (chunk != null) {
            chunk.activate(magazine);
            magazine.onChunkTaken();
            metrics.chunkActivated(sizeClass);
            events.reusePoolTake(sizeClass, chunk.slab.size, true, reuse.pooledBytes());
            events.chunkActivated(sizeClass, chunk.slab.size, metrics.activeChunks(sizeClass),
                magazine instanceof ThreadMagazine, true);
            return chunk;
        }
        Slab slab = reuse.pollSlabFor(sizeClass);
        events.reusePoolTake(sizeClass, slab == null ? 0 : slab.size, false, reuse.pooledBytes());
        return slab == null ? null : newChunk(magazine, sizeClass, slab);
    }

    /** A new chunk for {@code sizeClass} owned by {@code magazine} on {@code slab}. */
    SizeClassChunk newChunk(Magazine magazine, int sizeClass, Slab slab) {
        metrics.chunkActivated(sizeClass);
        SizeClassChunk chunk = isDebug() ? new DebugSizeClassChunk(slab, this, magazine, sizeClass)
            : new SizeClassChunk(slab, this, magazine, sizeClass);
        magazine.onChunkTaken();
        events.chunkActivated(sizeClass, slab.size, metrics.activeChunks(sizeClass),
            magazine instanceof ThreadMagazine, false);
        return chunk;
    }

    /** Gives an entirely free chunk back: to the reuse pool as it is, or its slab to the system. */
    void retireChunk(SizeClassChunk chunk) {
        chunk.onRetire();
        metrics.chunkRetired(chunk.sizeClass);
        // Read before the offer: once offered, another thread may take the chunk.
        int sizeClass = chunk.sizeClass;
        Slab slab = chunk.slab;
        boolean pooled = reuse.offerChunk(chunk);
        if (pooled) {
            reuseExcess.afterOffer();
        } else {
            freeSlab(slab);
        }
        events.chunkRetired(sizeClass, slab.size, metrics.activeChunks(sizeClass), pooled);
    }

    /** A new large chunk on {@code slab} for {@code magazine}. */
    LargeChunk newLargeChunk(Magazine magazine, Slab slab) {
        metrics.largeChunkCreated();
        magazine.onChunkTaken();
        return new LargeChunk(slab, this, magazine);
    }

    /** A detached large chunk no buffer uses any more: its slab goes back (protocol 6 (large chunks)). */
    void retireLargeChunk(LargeChunk chunk) {
        metrics.largeChunkFreed();
        releaseLargeSlab(chunk.slab);
    }

    // ------------------------------------------------------------------ slabs

    /**
     * A slab of at least {@code size} bytes for a large chunk: a bigger pooled slab serves as well, and using it
     * keeps slabs of sizes no longer asked for from sitting in the pool.
     */
    Slab takeLargeSlab(int size) {
        Slab slab = takePooledLargeSlab(size);
        return slab != null ? slab : allocateSlab(size);
    }

    /** A pooled empty slab of at least {@code size} bytes for a large chunk, or null. */
    Slab takePooledLargeSlab(int size) {
        Slab slab = reuse.pollSlabAtLeast(size);
        events.reusePoolTake(-1, slab == null ? 0 : slab.size, false, reuse.pooledBytes());
        return slab;
    }

    /** Returns an empty size-class slab to the reuse pool, or to the system when the pool is at its ceiling. */
    void releaseSlab(Slab slab) {
        if (reuse.offerSlab(slab)) {
            reuseExcess.afterOffer();
        } else {
            freeSlab(slab);
        }
    }

    /**
     * Returns an empty large-chunk slab to where {@link #largeSlabReturn} says: the system, or the reuse pool within
     * its budget (never into the excess above it, which is for the size classes' waves).
     */
    void releaseLargeSlab(Slab slab) {
        if (largeSlabReturn == LargeSlabReturn.TO_SYSTEM || !reuse.offerLargeSlab(slab)) {
            freeSlab(slab);
        }
    }

    void freeHugeSlab(Slab slab) {
        metrics.hugeBufferFreed(slab.size);
        slabs.free(slab, false);
    }

    private void freeSlab(Slab slab) {
        slabs.free(slab, true);
    }

    /** A slab from the system for chunks; see {@link #allocateSlab(int, boolean)}. */
    Slab allocateSlab(int size) {
        return allocateSlab(size, true);
    }

    /**
     * A slab from the system ({@code pooled} is false for the memory of one huge buffer); on exhaustion, gives back
     * the stripes' empty chunks and the pooled slabs and tries once more, then throws. Never called under a
     * stripe's lock: the retry locks every stripe.
     */
    private Slab allocateSlab(int size, boolean pooled) {
        try {
            return slabs.take(size, pooled);
        } catch (OutOfMemoryError first) {
            // Free memory we hold is ours to give back before we give up: the stripes' empty chunks (their unused
            // large chunks may be most of it), then every pooled slab. Thread magazines' lists are their owners'.
            stripes.trim();
            long freedBytes = freePooledSlabs();
            try {
                Slab slab = slabs.take(size, pooled);
                events.memoryExhausted(size, freedBytes, true, metrics.reservedBytes(), slabs.limit(),
                    first.getMessage());
                return slab;
            } catch (OutOfMemoryError second) {
                events.memoryExhausted(size, freedBytes, false, metrics.reservedBytes(), slabs.limit(),
                    first.getMessage());
                throw slabs.exhausted(size, second);
            }
        }
    }

    /** Gives every slab in the reuse pool back to the system; returns their bytes. */
    private long freePooledSlabs() {
        long freedBytes = 0;
        Slab slab;
        while ((slab = reuse.pollAny()) != null) {
            freeSlab(slab);
            freedBytes += slab.size;
        }
        return freedBytes;
    }

    // ------------------------------------------------------------------ threads and trim

    /** Gives the calling thread its own magazine (opt-in for threads that are not event loops). */
    public void attachCurrentThread() {
        threads.attachCurrentThread();
    }

    /** Ends the calling thread's magazine, if any: its chunks go back as their buffers are released. */
    public void detachCurrentThread() {
        threads.detachCurrentThread();
    }

    /**
     * Returns pooled-but-free memory: ends the magazines of dead threads, stripes give up their empty chunks now,
     * thread magazines at their next refill (their owner-only lists cannot be touched here), and the reuse pool's
     * slabs go back to the system.
     */
    public void trim() {
        int reaped = threads.reapDeadThreadMagazines();
        stripes.trim();
        int asked = threads.requestTrim();
        long freedBytes = freePooledSlabs();
        events.trimmed(freedBytes, reaped, asked, metrics.reservedBytes());
    }

    // ------------------------------------------------------------------ what the metric and the parts read

    public PoolMetrics metrics() {
        return metrics;
    }

    /**
     * Per size class c, {@code [2c]} allocations and {@code [2c + 1]} bytes requested since the pool was made: of
     * live thread magazines, stripes and ended magazines. A snapshot; a magazine ending meanwhile may be counted twice
     * or not at all in it.
     */
    public long[] requestCounts() {
        long[] totals = new long[2 * SizeClasses.COUNT];
        threads.sumRequests(totals);
        stripes.sumRequests(totals);
        metrics.sumEndedRequests(totals);
        return totals;
    }

    /** Bytes of empty chunks and slabs in the reuse pool. */
    public long pooledFreeBytes() {
        return reuse.pooledBytes();
    }

    public long reuseBudget() {
        return reuse.budget();
    }

    public int threadMagazineCount() {
        return threads.count();
    }

    public int stripeCount() {
        return stripes.count();
    }

    PoolSettings settings() {
        return settings;
    }

    LargeSlabReturn largeSlabReturn() {
        return largeSlabReturn;
    }

    /** The registry of thread magazines; the stress tests reap through it. */
    ThreadMagazines threads() {
        return threads;
    }

    /** The stripes; tests lock one through it. */
    Stripes stripes() {
        return stripes;
    }

    /** The purges of the reuse pool's excess; tests look into it. */
    ReuseExcess reuseExcess() {
        return reuseExcess;
    }

    /** The trims of the C heap after frees; tests look into it. */
    NativeTrim nativeTrim() {
        return nativeTrim;
    }

    /** The reuse pool; tests look into it. */
    ReusePool reuse() {
        return reuse;
    }
}
