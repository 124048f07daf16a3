package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where one pool's chunks, slabs and buffer objects come from and go back to: the {@link ReusePool} first, then the
 * system ({@link SlabSource}); a slab that does not fit is taken only after making room in every pool of its kind
 * ({@link MakingRoom}). The room below the magazines: they take and give back here, and it knows no magazine (a
 * magazine activates the chunk it takes; what the magazines hold, making room reaches through {@link HeldMemory}).
 * What the parts of the pool share (settings, metrics, observer) is its {@link PoolContext}.
 */
final class ChunkSupply {
    final PoolContext context;
    private final ReusePool reuse;
    private final ReuseExcess reuseExcess;
    /** Where empty large-chunk slabs go: the reuse pool, or the system where that is cheap. */
    private final LargeSlabReturn largeSlabReturn;
    /** What freeing a slab asks for: a trim of the C heap, or nothing (protocol 3b (resident memory)). */
    private final NativeTrim nativeTrim;
    private final SlabSource slabs;
    /** What the pool's magazines hold, as making room reaches it (protocol 9 (making room)). */
    private final HeldMemory held;

    ChunkSupply(PoolContext context, HeldMemory held) {
        this.context = context;
        PoolSettings settings = context.settings;
        boolean direct = context.direct;
        this.held = held;
        this.largeSlabReturn = LargeSlabReturn.of(direct);
        this.reuse = new ReusePool(settings.reuseBudgetBytes(), reuseCeiling(settings), largeSlabCeiling(settings),
            new LargeSlabMisses(TimeUnit.MILLISECONDS.toNanos(Math.max(1, settings.decayMillis())), SWING_MISSES),
            Math.max(SizeClasses.MAX_CHUNK_SIZE, settings.maxLargeChunkSize()));
        this.reuseExcess = new ReuseExcess(reuse, this::freeSlab, BackgroundThread.SCHEDULER,
            settings.decayMillis());
        this.nativeTrim = direct && settings.nativeTrimMillis() > 0
            ? new RateLimitedNativeTrim(settings.nativeTrimMillis()) : NativeTrim.NONE;
        this.slabs = new SlabSource(context, nativeTrim);
        if (direct) {
            // Once nothing reaches this supply (every chunk, magazine and buffer object of the pool does), no buffer
            // can touch a slab: the ones still taken go back. Heap slabs need nothing: the collector takes them.
            AfterCollection.registerJdkOnly(this, slabs.freeAllTask());
        }
    }

    /**
     * The pool is complete (its magazines exist): from now on a shortage of any pool of its kind reaches it
     * ({@link MakingRoom}).
     */
    void listForShortages() {
        MakingRoom.of(context.direct).add(this);
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
     * Misses of large slabs per decay period from which large buffers swing ({@link LargeSlabMisses}). Where large
     * slabs come to the pool, a miss is a trip to the system that costs tens of microseconds (an arena and a handshake
     * with every thread, or zeroed heap): 256 a second cost under 1% of a core, several times the steady churn of
     * large buffers with mixed lifetimes (PinningBenchmark's pattern on one thread misses 60 to 80 a second within the
     * budget), while a queue of 1 MiB buffers filling and draining misses hundreds every swing.
     */
    static final int SWING_MISSES = 256;

    /**
     * No bound but the large chunks' own when decay is on: a large chunk's slab comes from a chunk in use, so the
     * excess it makes is memory in use within the last delay, and it goes back {@code decayMillis} later. Just the
     * budget when decay is off, since nothing would give the excess back on time.
     */
    private static long largeSlabCeiling(PoolSettings settings) {
        return settings.decayMillis() > 0 ? Long.MAX_VALUE : settings.reuseBudgetBytes();
    }

    // ------------------------------------------------------------------ size-classed chunks

    /** An empty chunk of {@code sizeClass} from the reuse pool, as it is, for the caller to activate; or null. */
    SizeClassChunk pollChunk(int sizeClass) {
        SizeClassChunk chunk = reuse.pollChunk(sizeClass);
        if (chunk != null) {
            context.events.reusePoolTake(sizeClass, chunk.slab.size, true, reuse.pooledBytes());
        }
        return chunk;
    }

    /** A pooled empty slab that can back a chunk of {@code sizeClass}, or null. */
    Slab pollSlabFor(int sizeClass) {
        Slab slab = reuse.pollSlabFor(sizeClass);
        context.events.reusePoolTake(sizeClass, slab == null ? 0 : slab.size, false, reuse.pooledBytes());
        return slab;
    }

    /** A magazine put {@code chunk} to use: taken whole from the reuse pool if {@code reused}, else new. */
    void chunkActivated(SizeClassChunk chunk, boolean threadMagazine, boolean reused) {
        context.metrics.chunkActivated(chunk.sizeClass);
        context.events.chunkActivated(chunk.sizeClass, chunk.slab.size, context.metrics.activeChunks(chunk.sizeClass),
            threadMagazine, reused);
    }

    /** Gives an entirely free chunk back: to the reuse pool as it is, or its slab to the system. */
    void retireChunk(SizeClassChunk chunk) {
        chunk.onRetire();
        context.metrics.chunkRetired(chunk.sizeClass);
        // Read before the offer: once offered, another thread may take the chunk.
        int sizeClass = chunk.sizeClass;
        Slab slab = chunk.slab;
        boolean pooled = reuse.offerChunk(chunk);
        if (pooled) {
            reuseExcess.afterOffer();
        } else {
            freeSlab(slab);
        }
        context.events.chunkRetired(sizeClass, slab.size, context.metrics.activeChunks(sizeClass), pooled);
    }

    // ------------------------------------------------------------------ large chunks

    LargeSlabReturn largeSlabReturn() {
        return largeSlabReturn;
    }

    /** A detached large chunk no buffer uses any more: its slab goes back (protocol 6 (large chunks)). */
    void retireLargeChunk(Slab slab) {
        context.metrics.largeChunkFreed();
        releaseLargeSlab(slab);
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
        context.events.reusePoolTake(-1, slab == null ? 0 : slab.size, false, reuse.pooledBytes());
        return slab;
    }

    /**
     * Returns an empty large-chunk slab to where {@link #largeSlabReturn} says: the system, or the reuse pool, into
     * its excess if need be, which goes back a delay later (protocol 3a (the reuse pool's excess)).
     */
    void releaseLargeSlab(Slab slab) {
        if (largeSlabReturn == LargeSlabReturn.TO_REUSE_POOL && reuse.offerLargeSlab(slab)) {
            reuseExcess.afterOffer();
        } else {
            freeSlab(slab);
        }
    }

    // ------------------------------------------------------------------ slabs

    /** Returns an empty size-class slab to the reuse pool, or to the system when the pool is at its ceiling. */
    void releaseSlab(Slab slab) {
        if (reuse.offerSlab(slab)) {
            reuseExcess.afterOffer();
        } else {
            freeSlab(slab);
        }
    }

    /** The memory of one huge buffer; see {@link #allocateSlab(int, boolean)}. */
    Slab allocateHugeSlab(int size) {
        Slab slab = allocateSlab(size, false);
        context.metrics.hugeBufferAllocated(slab.size);
        return slab;
    }

    void freeHugeSlab(Slab slab) {
        context.metrics.hugeBufferFreed(slab.size);
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
     * what the pool holds elsewhere and the pooled slabs and tries once more, then throws. Never called under a
     * stripe's lock: the retry locks every stripe.
     */
    private Slab allocateSlab(int size, boolean pooled) {
        Slab slab = takeSlab(size, pooled);
        if (pooled && context.isDebug()) {
            // Debug mode: every free byte of a chunk is poison, so that a write into memory nobody holds shows at
            // its next hand-out (DebugMemory).
            slab.fill(0, slab.capacity, MagByteBuf.POISON);
        }
        return slab;
    }

    private Slab takeSlab(int size, boolean pooled) {
        Slab slab = slabs.tryTake(size, pooled, null);
        return slab != null ? slab : takeSlabAfterMakingRoom(size, pooled);
    }

    /**
     * Cold: the slab does not fit (direct: known before asking, {@link DirectMemoryLimit}) or the system refused it:
     * room is made in every pool of the kind, and the slab taken as soon as it fits; else the caller gets an
     * {@link OutOfMemoryError} that says where the memory is.
     */
    private Slab takeSlabAfterMakingRoom(int size, boolean pooled) {
        MakingRoom room = MakingRoom.of(context.direct);
        MakingRoom.Shortage shortage = new MakingRoom.Shortage();
        List<ChunkSupply> pools = room.pools();
        Slab slab = slabs.couldEverFit(size, MakingRoom.reservedBytes(pools))
            ? room.makeRoom(this, size, pooled, shortage) : null;
        context.events.memoryExhausted(size, shortage.givenBackBytes, slab != null, context.metrics.reservedBytes(),
            slabs.limit(), shortage.elapsedNanos, shortage.unanswered,
            shortage.refusal == null ? null : shortage.refusal.getMessage());
        if (slab == null) {
            throw slabs.exhausted(size, shortage, pools);
        }
        return slab;
    }

    /**
     * Making room: a slab, or null if it does not fit or the system refused it (recorded in {@code shortage}). The
     * caller of {@link #allocateSlab} poisons it in debug mode.
     */
    Slab tryTakeSlab(int size, boolean pooled, MakingRoom.Shortage shortage) {
        return slabs.tryTake(size, pooled, shortage);
    }

    // ------------------------------------------------------------------ making room (protocol 9 (making room))

    /** Making room: the calling thread's own magazine of this pool gives back what it holds free, if it has one. */
    void giveBackHeldByCaller() {
        held.giveBackHeldByCaller();
    }

    /** Making room: the stripes give back their free chunks. */
    void giveBackShared() {
        held.giveBackShared();
    }

    /** Making room: every thread magazine's unused large chunks are detached, whoever owns it. */
    void reclaimUnusedLargeChunks() {
        held.reclaimUnusedLargeChunks();
    }

    /** Making room: asks every thread magazine but the caller's to give back what it holds free. */
    void askThreadMagazines(GiveBackRound round) {
        held.askThreadMagazines(round);
    }

    /**
     * Making room: closes the arena of one slab this pool freed whose memory still counts against the limit (it waits
     * for its close on magalloc-arena-closes); returns its bytes, 0 if none waits.
     */
    long closeOnePendingArena() {
        return slabs.closeOnePendingArena();
    }

    /** Bytes this pool freed that still count against the direct memory limit until their arenas are closed. */
    long unclosedArenaBytes() {
        return slabs.unclosedArenaBytes();
    }

    /** Making room: waits, until {@code deadlineNanos} at most, for this pool's arena closes in progress. */
    void awaitArenaCloses(long deadlineNanos) {
        slabs.awaitArenaCloses(deadlineNanos);
    }

    /** Making room: gives one pooled slab back to the system; returns its bytes, 0 if the pool holds none. */
    long freeOnePooledSlab() {
        Slab slab = reuse.pollAny();
        if (slab == null) {
            return 0;
        }
        freeSlab(slab);
        return slab.size;
    }

    /** Gives every slab in the reuse pool back to the system; returns their bytes. */
    long freeEveryPooledSlab() {
        long freedBytes = 0;
        Slab slab;
        while ((slab = reuse.pollAny()) != null) {
            freeSlab(slab);
            freedBytes += slab.size;
        }
        return freedBytes;
    }

    // ------------------------------------------------------------------ what the metric and the tests read

    /** Bytes of the live buffers in this pool's slabs, as their chunks count them now (racy; for errors). */
    long liveBufferBytes() {
        return slabs.liveBufferBytes();
    }

    /** Bytes of empty chunks and slabs in the reuse pool. */
    long pooledFreeBytes() {
        return reuse.pooledBytes();
    }

    long reuseBudget() {
        return reuse.budget();
    }

    ReusePool reuse() {
        return reuse;
    }

    ReuseExcess reuseExcess() {
        return reuseExcess;
    }

    NativeTrim nativeTrim() {
        return nativeTrim;
    }
}
