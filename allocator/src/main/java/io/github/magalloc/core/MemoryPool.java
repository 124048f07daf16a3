package io.github.magalloc.core;

import io.github.magalloc.buffer.BufferPool;
import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;
import io.netty.buffer.ByteBufAllocator;

/**
 * Everything magalloc keeps for one kind of memory (heap or direct), and the entry of every allocation: a request
 * up to the largest size class goes to the calling thread's own magazine ({@link ThreadMagazines}) or to a stripe
 * ({@link Stripes}); above it, to the same magazine's large chunks; above {@code maxPooledSize}, to memory of its
 * own ({@link HugeChunk}); a buffer that changes capacity moves through {@link BufferMoves}. Where chunks and
 * slabs come from and go back to is the {@link ChunkSupply}'s, the room below the magazines.
 */
public final class MemoryPool extends BufferPool {
    static {
        ClassesLoadedAhead.loadAndInitialize();
    }

    private final ChunkSupply supply;
    private final ThreadMagazines threads;
    private final Stripes stripes;
    private final BufferMoves moves;
    private final boolean direct;

    /**
     * A pool of one kind of memory for {@code allocator}, listed for the shortages of its kind once made.
     *
     * @param allocator the allocator its buffers report as {@code alloc()}
     * @param direct true for direct memory, false for heap
     * @param settings the checked settings the pool works with
     * @param events the observer of its cold paths, {@link PoolEvents#NONE} for none
     */
    public MemoryPool(ByteBufAllocator allocator, boolean direct, PoolSettings settings, PoolEvents events) {
        super(allocator, settings.debug());
        this.direct = direct;
        this.supply = new ChunkSupply(new PoolContext(this, direct, settings, events), new Held());
        this.threads = new ThreadMagazines(supply, settings.threadLocalMagazinesForAllThreads());
        this.stripes = new Stripes(supply, settings.sharedMagazines());
        this.moves = new BufferMoves(this::allocateForMove, settings.maxPooledSize());
        // Last: another pool's shortage may reach this one's magazines as soon as it is listed.
        supply.listForShortages();
    }

    /** The magazines' memory, as a shortage reaches it (protocol 9 (making room)). */
    private final class Held implements HeldMemory {
        @Override
        public void giveBackHeldByCaller() {
            threads.giveBackHeldByCaller();
        }

        @Override
        public void giveBackShared() {
            stripes.trim();
        }

        @Override
        public void reclaimUnusedLargeChunks() {
            threads.reclaimUnusedLargeChunks();
        }

        @Override
        public void askThreadMagazines(GiveBackRound round) {
            threads.askToGiveBack(round);
        }
    }

    // ------------------------------------------------------------------ allocation

    /**
     * A new buffer: from the calling thread's magazine or a stripe, or with memory of its own above
     * {@code maxPooledSize}.
     *
     * @param initialCapacity the capacity in bytes, from 0 to {@code maxCapacity} (checked by Netty's allocator)
     * @param maxCapacity the most the buffer may grow to, in bytes
     * @return a buffer with a reference count of 1, its indices at 0
     * @throws OutOfMemoryError if the memory cannot be had even after room was made in every pool of the kind
     */
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

    /**
     * New memory for a buffer that moves: as {@link #allocate}, but not counted as a request (the waste statistics
     * count what users ask for, not the allocator's own moves).
     */
    private MagByteBuf allocateForMove(int capacity, int maxCapacity) {
        if (capacity <= SizeClasses.MAX_SIZE) {
            int sizeClass = SizeClasses.indexOf(capacity);
            ThreadMagazine magazine = threads.current();
            return magazine != null ? magazine.allocateForMove(sizeClass, capacity, maxCapacity)
                : stripes.allocateForMove(sizeClass, capacity, maxCapacity);
        }
        return allocateAboveSizeClasses(capacity, maxCapacity);
    }

    private MagByteBuf allocateAboveSizeClasses(int initialCapacity, int maxCapacity) {
        ThreadMagazine magazine = threads.current();
        if (initialCapacity > supply.context.settings.maxPooledSize()) {
            MagByteBuf buf = magazine != null ? magazine.objects.take() : stripes.takeObject();
            Slab slab = supply.allocateHugeSlab(initialCapacity);
            buf.init(new HugeChunk(slab, supply), -1, 0, slab.size, initialCapacity, maxCapacity);
            return buf;
        }
        if (magazine != null) {
            return magazine.allocateLarge(initialCapacity, maxCapacity);
        }
        return stripes.allocate(Stripes.ABOVE_SIZE_CLASSES, initialCapacity, maxCapacity);
    }

    /** Growth: the buffer moves, with room for its next doubling. */
    @Override
    protected void reallocate(MagByteBuf buf, int newCapacity) {
        moves.grow(buf, newCapacity);
    }

    @Override
    protected void shrink(MagByteBuf buf, int newCapacity) {
        moves.shrink(buf, newCapacity);
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
     * Returns pooled-but-free memory: ends the magazines of dead threads, stripes give up their empty chunks now, so
     * does the calling thread's own magazine, other thread magazines at their next refill (their owner-only lists
     * cannot be touched here), and the reuse pool's slabs go back to the system, the calling thread's chunks with them.
     */
    public void trim() {
        int reaped = threads.reapDeadThreadMagazines();
        stripes.trim();
        int asked = threads.requestTrim();
        long freedBytes = supply.freeEveryPooledSlab();
        supply.context.events.trimmed(freedBytes, reaped, asked, supply.context.metrics.reservedBytes());
    }

    // ------------------------------------------------------------------ what the metric and the tests read

    /**
     * Whether this pool's memory is direct (else heap).
     *
     * @return true for direct memory, false for heap
     */
    public boolean isDirect() {
        return direct;
    }

    /**
     * The identity hash of the allocator this pool belongs to: what names it in flight-recorder events.
     *
     * @return {@link System#identityHashCode} of the allocator
     */
    public int allocatorId() {
        return System.identityHashCode(allocator());
    }

    /**
     * The pool's counters.
     *
     * @return the counters, the same object for the pool's life
     */
    public PoolMetrics metrics() {
        return supply.context.metrics;
    }

    /**
     * Per size class c, {@code [2c]} allocations and {@code [2c + 1]} bytes requested since the pool was made: of
     * live thread magazines, stripes and ended magazines. A snapshot; a magazine ending meanwhile may be counted twice
     * or not at all in it.
     *
     * @return a new array of {@code 2 * SizeClasses.COUNT} totals
     */
    public long[] requestCounts() {
        long[] totals = RequestCounts.newTotals();
        threads.sumRequests(totals);
        stripes.sumRequests(totals);
        supply.context.metrics.sumEndedRequests(totals);
        return totals;
    }

    /**
     * Bytes of empty chunks and slabs in the reuse pool.
     *
     * @return the bytes, 0 or more
     */
    public long pooledFreeBytes() {
        return supply.pooledFreeBytes();
    }

    /**
     * The reuse pool's budget.
     *
     * @return the budget in bytes, {@link PoolSettings#reuseBudgetBytes()}
     */
    public long reuseBudget() {
        return supply.reuseBudget();
    }

    /**
     * The magazines of live threads, including dead threads' not yet reaped.
     *
     * @return the number of thread magazines, 0 or more
     */
    public int threadMagazineCount() {
        return threads.count();
    }

    /**
     * The stripes (shared magazines).
     *
     * @return the number of stripes, {@link PoolSettings#sharedMagazines()}
     */
    public int stripeCount() {
        return stripes.count();
    }

    /** Where this pool's chunks and slabs come from; tests build parts on it. */
    ChunkSupply supply() {
        return supply;
    }

    /** The registry of thread magazines; the stress tests reap through it. */
    ThreadMagazines threads() {
        return threads;
    }

    /** The stripes; tests lock one through it. */
    Stripes stripes() {
        return stripes;
    }
}
