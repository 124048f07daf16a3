package io.github.magalloc;

import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.PlatformDependent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything magalloc keeps for one kind of memory (heap or direct): the magazines, the slab reuse pool, the
 * threads' buffer-object caches and the counters. Decides which magazine serves the calling thread:
 * <ul>
 *   <li>a thread-local magazine for {@link FastThreadLocalThread}s that clean up their thread locals (event
 *       loops), for threads that opted in, and for every thread when so configured;</li>
 *   <li>otherwise one of a few shared, striped magazines, each behind its own lock.</li>
 * </ul>
 */
final class MemoryPool {
    /**
     * Largest capacity a buffer grows to with room reserved for its next doubling ({@link #reservationForGrowth}):
     * so a grown buffer holds about 8 KiB it did not ask for at most (16 KiB for 8,000 bytes: the size classes round
     * up), and growth stays within the size classes.
     */
    static final int GROWTH_RESERVE_LIMIT = 8 * 1024;

    final MagazineByteBufAllocator allocator;
    final boolean direct;
    final boolean debug;
    final PoolMetrics metrics = new PoolMetrics();
    final ReusePool reuse;
    private final int maxPooledSize;
    private final int maxLargeChunkSize;
    private final boolean threadLocalForAllThreads;
    /** True once any thread that is not a FastThreadLocalThread may have a magazine of its own. */
    private volatile boolean plainThreadMagazines;
    private final boolean unsafeDirect;
    /** Where empty large-chunk slabs go: the reuse pool, or the system where that is cheap. */
    final LargeSlabReturn largeSlabReturn;

    /** Shared magazines, each with its own lock. */
    private final Magazine[] stripes;
    private final FastThreadLocal<Magazine> threadMagazines;
    /** Thread-local magazines alive; lets trim() reach them and dead threads' magazines be abandoned. */
    private final Set<Magazine> liveThreadMagazines = ConcurrentHashMap.newKeySet();
    /**
     * Buffer objects of threads without a magazine of their own (a thread's magazine carries its thread's). A JDK
     * thread local: these threads are mostly not FastThreadLocalThreads, for which it is one lookup where Netty's
     * takes two, and it takes no slot of Netty's index table, which never gives slots back.
     */
    private final ThreadLocal<BufferObjectCache> plainThreadObjects;

    MemoryPool(MagazineByteBufAllocator allocator, boolean direct, MagazineAllocatorConfig config) {
        this.allocator = allocator;
        this.direct = direct;
        this.debug = config.debug();
        this.maxPooledSize = config.maxPooledSize();
        this.maxLargeChunkSize = config.maxLargeChunkSize();
        this.threadLocalForAllThreads = config.threadLocalMagazinesForAllThreads();
        this.plainThreadMagazines = threadLocalForAllThreads;
        this.unsafeDirect = direct && PlatformDependent.hasUnsafe() && PlatformDependent.isUnaligned();
        this.largeSlabReturn = LargeSlabReturn.of(direct);
        this.reuse = new ReusePool(config.reuseBudgetBytes(), Math.max(SizeClasses.MAX_CHUNK_SIZE, maxLargeChunkSize));
        this.stripes = new Magazine[config.sharedMagazines()];
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = Magazine.shared(this);
        }
        this.plainThreadObjects =
            ThreadLocal.withInitial(() -> new BufferObjectCache(this, Thread.currentThread().getId()));
        this.threadMagazines = new FastThreadLocal<Magazine>() {
            @Override
            protected Magazine initialValue() {
                return newThreadMagazine();
            }

            @Override
            protected void onRemoval(Magazine magazine) {
                close(magazine);
            }
        };
    }

    // ------------------------------------------------------------------ allocation

    MagByteBuf allocate(int initialCapacity, int maxCapacity) {
        if (initialCapacity <= SizeClasses.MAX_SIZE) {
            int sizeClass = SizeClasses.indexOf(initialCapacity);
            Magazine magazine = threadMagazine();
            if (magazine != null) {
                return magazine.allocate(sizeClass, initialCapacity, maxCapacity);
            }
            return allocateShared(sizeClass, initialCapacity, maxCapacity);
        }
        return allocateAboveSizeClasses(initialCapacity, maxCapacity);
    }

    /** The calling thread's own magazine, or null if it should use a shared one. */
    private Magazine threadMagazine() {
        // A plain thread's thread-local lookup is a ThreadLocal search: skip it unless some plain thread may have
        // a magazine (it opted in, or every thread gets one). Racy read on purpose: a thread that just attached
        // itself set the flag before its own lookup.
        if (!(Thread.currentThread() instanceof FastThreadLocalThread) && !plainThreadMagazines) {
            return null;
        }
        Magazine magazine = threadMagazines.getIfExists();
        return magazine != null ? magazine : newThreadMagazineIfEligible();
    }

    /** Cold: the first allocation of an event-loop (or opted-in) thread creates its magazine. */
    private Magazine newThreadMagazineIfEligible() {
        if (threadLocalForAllThreads || FastThreadLocalThread.willCleanupFastThreadLocals(Thread.currentThread())) {
            return threadMagazines.get();
        }
        return null;
    }

    /**
     * Under a stripe's lock, the object first (if creating it fails, nothing else was taken), then the memory. A new
     * slab, when one is needed, is taken with no lock held (see {@link Magazine#tryAllocate}).
     */
    private MagByteBuf allocateShared(int sizeClass, int initialCapacity, int maxCapacity) {
        Magazine stripe = lockStripe();
        MagByteBuf buf;
        int slabSize;
        try {
            buf = plainThreadObjects(stripe).take();
            if (stripe.tryAllocate(buf, sizeClass, initialCapacity, maxCapacity)) {
                return buf;
            }
            slabSize = stripe.nextChunkSize(sizeClass);
        } finally {
            stripe.unlock();
        }
        Slab slab = allocateSlab(slabSize); // may throw OutOfMemoryError: nothing is held
        stripe = lockStripe();
        try {
            return stripe.allocateOnNewSlab(buf, sizeClass, initialCapacity, maxCapacity, slab);
        } finally {
            stripe.unlock();
        }
    }

    private MagByteBuf allocateAboveSizeClasses(int initialCapacity, int maxCapacity) {
        if (initialCapacity > maxPooledSize) {
            return allocateHuge(initialCapacity, maxCapacity);
        }
        Magazine magazine = threadMagazine();
        if (magazine != null) {
            return magazine.allocateLarge(magazine.objects.take(), initialCapacity, maxCapacity);
        }
        Magazine stripe = lockStripe();
        MagByteBuf buf;
        int slabSize;
        try {
            buf = plainThreadObjects(stripe).take();
            if (stripe.tryAllocateLarge(buf, initialCapacity, maxCapacity)) {
                return buf;
            }
            slabSize = stripe.largeChunkSize(LargeChunk.runBytes(initialCapacity));
        } finally {
            stripe.unlock();
        }
        Slab slab = allocateSlab(slabSize); // may throw OutOfMemoryError: nothing is held
        stripe = lockStripe();
        try {
            return stripe.allocateLargeOnNewSlab(buf, initialCapacity, maxCapacity, slab);
        } finally {
            stripe.unlock();
        }
    }

    private MagByteBuf allocateHuge(int initialCapacity, int maxCapacity) {
        Magazine magazine = threadMagazine();
        MagByteBuf buf = (magazine != null ? magazine.objects : plainThreadObjects.get()).take();
        Slab slab = allocateSlab(initialCapacity, false);
        metrics.hugeBytes.addAndGet(slab.size);
        buf.init(new HugeChunk(slab, this), -1, 0, slab.size, initialCapacity, maxCapacity);
        return buf;
    }

    /**
     * Lock holder of {@code stripe}, on a plain thread: that thread's object cache. The stripe's remembered cache if
     * it is this thread's (invariant: {@code lastPlainThreadObjects.ownerThreadId == caller's id} implies it is the
     * cache {@link #plainThreadObjects} holds for the caller), else the {@code ThreadLocal} lookup, remembered.
     */
    private BufferObjectCache plainThreadObjects(Magazine stripe) {
        BufferObjectCache objects = stripe.lastPlainThreadObjects;
        if (objects == null || objects.ownerThreadId != Thread.currentThread().getId()) {
            objects = plainThreadObjects.get();
            stripe.lastPlainThreadObjects = objects;
        }
        return objects;
    }

    /** Tries every stripe without waiting first, so threads spread out; then waits on the thread's own stripe. */
    private Magazine lockStripe() {
        Magazine[] stripes = this.stripes;
        int start = (int) Thread.currentThread().getId();
        int mask = stripes.length - 1;
        for (int i = 0; i < stripes.length; i++) {
            Magazine stripe = stripes[(start + i) & mask];
            if (stripe.tryLock()) {
                return stripe;
            }
        }
        Magazine stripe = stripes[start & mask];
        stripe.lock();
        return stripe;
    }

    /**
     * Moves {@code buf} to memory of {@code newCapacity} bytes: allocate, copy, then free the old memory (in that
     * order, so a failed allocation loses nothing and no byte is read from freed memory).
     */
    void reallocate(MagByteBuf buf, int newCapacity) {
        MagByteBuf fresh = allocate(reservationForGrowth(buf, newCapacity), buf.maxCapacity());
        buf.copyContentTo(fresh, Math.min(buf.capacity(), newCapacity));
        buf.swapMemory(fresh);
        swapSegmentSlots(buf, fresh);
        fresh.freeUnshared();
    }

    /**
     * Bytes to reserve for {@code buf} growing to {@code newCapacity}: twice that, up to
     * {@link #GROWTH_RESERVE_LIMIT}, so that the next doubling of {@code ensureWritable} (Netty's
     * {@code calculateNewCapacity} doubles up to 4 MiB) fits in place and a growing buffer moves every other time
     * only: 64 B to 16 KiB moves 4 times and copies 5 KiB instead of 8 times and 16 KiB. Never beyond the buffer's
     * max capacity, whose memory could not be used.
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
        if (grown.home != SegmentSlot.HOME || fresh.home != SegmentSlot.HOME
            || !(grown.chunk instanceof SizeClassChunk) || !(fresh.chunk instanceof SizeClassChunk)) {
            return;
        }
        SizeClassChunk grownInto = (SizeClassChunk) grown.chunk;
        SizeClassChunk movedFrom = (SizeClassChunk) fresh.chunk;
        long threadId = Thread.currentThread().getId();
        // Both chunks hold a live buffer's segment, so neither can be retired meanwhile: their magazines are fixed.
        if (grownInto.magazine.lvOwnerThreadId() == threadId && movedFrom.magazine.lvOwnerThreadId() == threadId) {
            grownInto.rebind(grown.segment, fresh, grown);
            movedFrom.rebind(fresh.segment, grown, fresh);
        }
    }

    // ------------------------------------------------------------------ buffer objects

    /** A new buffer object of this pool's kind, belonging to {@code home} for life. */
    MagByteBuf newBufferObject(ObjectHome home) {
        return direct
            ? unsafeDirect ? new UnsafeDirectMagByteBuf(this, home) : new DirectMagByteBuf(this, home)
            : new HeapMagByteBuf(this, home);
    }

    // ------------------------------------------------------------------ slabs

    /**
     * A chunk for {@code sizeClass} owned by {@code magazine} from the reuse pool: an empty chunk of the class as it
     * is, else a new chunk on a pooled slab; null if the pool has neither.
     */
    SizeClassChunk takePooledChunk(Magazine magazine, int sizeClass) {
        SizeClassChunk chunk = reuse.pollChunk(sizeClass);
        if (chunk != null) {
            chunk.activate(magazine);
            metrics.chunkActivated(sizeClass);
            JfrEvents.reusePoolTake(this, sizeClass, chunk.slab, true);
            JfrEvents.chunkActivated(this, chunk, magazine, true);
            return chunk;
        }
        Slab slab = reuse.pollSlabFor(sizeClass);
        JfrEvents.reusePoolTake(this, sizeClass, slab, false);
        return slab == null ? null : newChunk(magazine, sizeClass, slab);
    }

    /** A new chunk for {@code sizeClass} owned by {@code magazine} on {@code slab}. */
    SizeClassChunk newChunk(Magazine magazine, int sizeClass, Slab slab) {
        metrics.chunkActivated(sizeClass);
        SizeClassChunk chunk = new SizeClassChunk(slab, this, magazine, sizeClass);
        JfrEvents.chunkActivated(this, chunk, magazine, false);
        return chunk;
    }

    /** Gives an entirely free chunk back: to the reuse pool as it is, or its slab to the system. */
    void retireChunk(SizeClassChunk chunk) {
        // No buffer holds a segment, so nobody reads the magazine; forgetting it lets an abandoned one be collected.
        chunk.onRetire();
        metrics.chunkRetired(chunk.sizeClass);
        boolean pooled = reuse.offerChunk(chunk);
        if (!pooled) {
            freeSlab(chunk.slab);
        }
        JfrEvents.chunkRetired(this, chunk, pooled);
    }

    /** A new large chunk on {@code slab} for {@code magazine}. */
    LargeChunk newLargeChunk(Magazine magazine, Slab slab) {
        metrics.largeChunks.incrementAndGet();
        return new LargeChunk(slab, this, magazine);
    }

    /** A detached large chunk no buffer uses any more: its slab goes back (see {@link LargeChunk}'s invariants). */
    void retireLargeChunk(LargeChunk chunk) {
        metrics.largeChunks.decrementAndGet();
        releaseLargeSlab(chunk.slab);
    }

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
        JfrEvents.reusePoolTake(this, -1, slab, false);
        return slab;
    }

    /** Returns an empty size-class slab to the reuse pool, or to the system when the pool is at its budget. */
    void releaseSlab(Slab slab) {
        if (!reuse.offerSlab(slab)) {
            freeSlab(slab);
        }
    }

    /** Returns an empty large-chunk slab to where {@link #largeSlabReturn} says. */
    void releaseLargeSlab(Slab slab) {
        if (largeSlabReturn == LargeSlabReturn.TO_SYSTEM || !reuse.offerSlab(slab)) {
            freeSlab(slab);
        }
    }

    void freeSlab(Slab slab) {
        freeSlab(slab, true);
    }

    void freeHugeSlab(Slab slab) {
        metrics.hugeBytes.addAndGet(-slab.size);
        freeSlab(slab, false);
    }

    /** {@code pooled} is false for the memory of one huge buffer. */
    private void freeSlab(Slab slab, boolean pooled) {
        slab.free();
        metrics.reservedBytes.addAndGet(-slab.size);
        metrics.slabsFreed.incrementAndGet();
        JfrEvents.slabFreed(this, slab, pooled);
    }

    /** A slab from the system for chunks; see {@link #allocateSlab(int, boolean)}. */
    Slab allocateSlab(int size) {
        return allocateSlab(size, true);
    }

    /**
     * A slab from the system ({@code pooled} is false for the memory of one huge buffer); on exhaustion, frees the
     * shared magazines' empty chunks and the pooled slabs and tries once more, then throws.
     */
    private Slab allocateSlab(int size, boolean pooled) {
        Slab slab;
        try {
            slab = newSlab(size);
        } catch (OutOfMemoryError first) {
            slab = retryAfterFreeingPooledSlabs(size, first);
        }
        metrics.reservedBytes.addAndGet(slab.size);
        metrics.slabsAllocated.incrementAndGet();
        JfrEvents.slabAllocated(this, slab, pooled);
        return slab;
    }

    private Slab retryAfterFreeingPooledSlabs(int size, OutOfMemoryError first) {
        // Free memory we hold is ours to give back before we give up: the shared magazines' empty chunks (their
        // unused large chunks may be most of it), then every pooled slab. Never called under a stripe's lock: slabs
        // from the system are taken with no lock held. Thread magazines' lists are their owners' only.
        trimSharedMagazines();
        long freedBytes = freePooledSlabs();
        Slab slab;
        try {
            slab = newSlab(size);
        } catch (OutOfMemoryError second) {
            JfrEvents.memoryExhausted(this, size, freedBytes, false, first);
            throw outOfMemory(size, second);
        }
        JfrEvents.memoryExhausted(this, size, freedBytes, true, first);
        return slab;
    }

    private Slab newSlab(int size) {
        return direct ? Slab.direct(size) : Slab.heap(size);
    }

    private OutOfMemoryError outOfMemory(int size, OutOfMemoryError cause) {
        String limit = direct
            ? "max direct memory " + memoryLimit() + " bytes (-XX:MaxDirectMemorySize or -Dio.netty.maxDirectMemory)"
            : "max heap " + memoryLimit() + " bytes (-Xmx)";
        OutOfMemoryError error = new OutOfMemoryError("magalloc: cannot allocate " + size + " bytes of "
            + (direct ? "direct" : "heap") + " memory; " + limit + "; magalloc holds "
            + metrics.reservedBytes.get() + " bytes (" + cause.getMessage() + ")");
        error.initCause(cause);
        return error;
    }

    /** The JVM's limit for this pool's memory: max direct memory as Netty sees it, or max heap. */
    long memoryLimit() {
        return direct ? PlatformDependent.maxDirectMemory() : Runtime.getRuntime().maxMemory();
    }

    /**
     * Slab size of a new large chunk for a run of {@code runBytes}, when the magazine's large requests average
     * {@code averageSize}: room for two average runs, rounded up to a power of two from 128 KiB to
     * {@code maxLargeChunkSize}, and at least the run itself. Small enough that a rarely used chunk costs little,
     * big enough that several buffers share a chunk and pages freed around a long-lived one are reused.
     */
    int largeChunkSizeFor(int runBytes, int averageSize) {
        long wanted = Math.max(runBytes, (long) averageSize * 2);
        int chunkSize = wanted >= maxLargeChunkSize ? maxLargeChunkSize
            : Math.max(SizeClasses.MIN_CHUNK_SIZE * 2, Integer.highestOneBit((int) wanted - 1) << 1);
        return Math.max(chunkSize, runBytes);
    }

    // ------------------------------------------------------------------ magazines' life cycle

    private Magazine newThreadMagazine() {
        // A new thread is a good moment to look for dead ones: no lock is held here, and thread churn is
        // exactly what leaves dead threads' magazines behind.
        reapDeadThreadMagazines();
        Magazine magazine = Magazine.ofThread(this, Thread.currentThread());
        liveThreadMagazines.add(magazine);
        JfrEvents.magazineCreated(this);
        return magazine;
    }

    /** Gives the calling thread its own magazine (opt-in for threads that are not event loops). */
    void attachCurrentThread() {
        plainThreadMagazines = true;
        threadMagazines.get();
    }

    /** Ends the calling thread's magazine, if any: it becomes shared, and its chunks go back as buffers are released. */
    void detachCurrentThread() {
        threadMagazines.remove();
    }

    /**
     * Ends a thread's magazine ({@link Magazine#abandon}); runs once, on the owner or after it died. Returns whether
     * this call ended it.
     */
    private boolean close(Magazine magazine) {
        if (liveThreadMagazines.remove(magazine)) {
            magazine.abandon();
            return true;
        }
        return false;
    }

    /**
     * Abandons the magazines of threads that died without cleaning up their thread locals. A terminated thread's
     * writes happen-before {@code isAlive()} returning false; a thread already collected is dead too. Returns how
     * many this call ended.
     */
    int reapDeadThreadMagazines() {
        int ended = 0;
        for (Magazine magazine : liveThreadMagazines) {
            Thread owner = magazine.ownerThread.get();
            if ((owner == null || !owner.isAlive()) && close(magazine)) {
                ended++;
            }
        }
        return ended;
    }

    /**
     * Returns pooled-but-free memory: empty slabs go back to the system, shared magazines give up their empty
     * chunks now, thread-local magazines at their next refill (their owner-only lists cannot be touched here).
     */
    void trim() {
        int reaped = reapDeadThreadMagazines();
        trimSharedMagazines();
        int asked = 0;
        for (Magazine magazine : liveThreadMagazines) {
            magazine.trimRequested = true;
            asked++;
        }
        long freedBytes = freePooledSlabs();
        JfrEvents.trimmed(this, freedBytes, reaped, asked);
    }

    /** Each shared magazine, under its lock, gives its empty chunks to the reuse pool. */
    private void trimSharedMagazines() {
        for (Magazine stripe : stripes) {
            stripe.lock();
            try {
                stripe.trimOwned();
                stripe.lastPlainThreadObjects = null;
            } finally {
                stripe.unlock();
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

    int liveThreadMagazineCount() {
        return liveThreadMagazines.size();
    }

    int sharedMagazineCount() {
        return stripes.length;
    }
}
