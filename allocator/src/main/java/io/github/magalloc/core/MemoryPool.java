package io.github.magalloc.core;

import io.github.magalloc.buffer.BufferPool;
import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;
import io.netty.buffer.ByteBufAllocator;

/**
 * Everything magalloc keeps for one kind of memory (heap or direct), and the entry of every allocation: a request
 * up to the largest size class goes to the calling thread's own magazine ({@link ThreadMagazines}) or to a stripe
 * ({@link Stripes}); above it, to the same magazine's large chunks; above {@code maxPooledSize}, to memory of its
 * own ({@link HugeChunk}). Where chunks and slabs come from and go back to is the {@link ChunkSupply}'s, the room
 * below the magazines.
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

    private final ChunkSupply supply;
    private final ThreadMagazines threads;
    private final Stripes stripes;
    private final boolean direct;

    public MemoryPool(ByteBufAllocator allocator, boolean direct, PoolSettings settings, PoolEvents events) {
        super(allocator, settings.debug());
        this.direct = direct;
        // The retry on exhausted memory first gives back the stripes' empty chunks (made just below).
        this.supply = new ChunkSupply(this, direct, settings, events, this::trimStripes);
        this.threads = new ThreadMagazines(supply, settings.threadLocalMagazinesForAllThreads());
        this.stripes = new Stripes(supply, settings.sharedMagazines());
    }

    private void trimStripes() {
        stripes.trim();
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
        if (initialCapacity > supply.settings.maxPooledSize()) {
            return allocateHuge(magazine != null ? magazine.objects.take() : stripes.takeObject(),
                initialCapacity, maxCapacity);
        }
        if (magazine != null) {
            return magazine.allocateLarge(initialCapacity, maxCapacity);
        }
        return stripes.allocate(Stripes.ABOVE_SIZE_CLASSES, initialCapacity, maxCapacity);
    }

    private MagByteBuf allocateHuge(MagByteBuf buf, int initialCapacity, int maxCapacity) {
        Slab slab = supply.allocateHugeSlab(initialCapacity);
        buf.init(new HugeChunk(slab, supply), -1, 0, slab.size, initialCapacity, maxCapacity);
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
        return capacity <= supply.settings.maxPooledSize() ? LargeChunk.runBytes(capacity) : capacity;
    }

    /**
     * Moves {@code buf} to new memory of {@code capacity} bytes, keeping its {@code bytes} bytes from {@code index}:
     * allocate, copy, then free the old memory (in that order, so a failed allocation loses nothing and no byte is
     * read from freed memory). The old memory goes back through the temporary object the new memory came with,
     * without the reference count's CAS: no other code has seen that object.
     */
    private void moveTo(MagByteBuf buf, int capacity, int index, int bytes) {
        MagByteBuf fresh = allocateForMove(capacity, buf.maxCapacity());
        buf.copyContentTo(fresh, index, bytes);
        buf.swapMemory(fresh);
        boolean slotsSwapped = swapSegmentSlots(buf, fresh);
        fresh.freeUnshared();
        if (!slotsSwapped) {
            returnToSlot(fresh, buf);
        }
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
     * makes no garbage) and this returns true. Both or neither: an object must stay with chunks of the thread that
     * hands it out.
     */
    private static boolean swapSegmentSlots(MagByteBuf grown, MagByteBuf fresh) {
        if (grown.home() != SegmentSlot.HOME || fresh.home() != SegmentSlot.HOME
            || !isCallersSegment(grown) || !isCallersSegment(fresh)) {
            return false;
        }
        ((SizeClassChunk) grown.memory()).rebind(grown.segment(), fresh, grown);
        ((SizeClassChunk) fresh.memory()).rebind(fresh.segment(), grown, fresh);
        return true;
    }

    /**
     * After {@code fresh}, a segment's own object, lent its segment to {@code moved} (an object of another home) and
     * freed the memory it took in exchange: it takes its segment back as the slot's object, so that the segment's
     * next allocation makes no new object (a shrink of a large buffer into the size classes would otherwise leave
     * one to the garbage collector every time). The slot is handed out only once {@code moved} frees the segment;
     * {@code fresh} was a temporary no other code has seen, so no stale reference to it exists.
     */
    private static void returnToSlot(MagByteBuf fresh, MagByteBuf moved) {
        if (fresh.home() == SegmentSlot.HOME && isCallersSegment(moved)) {
            ((SizeClassChunk) moved.memory()).returnToSlot(moved.segment(), fresh);
        }
    }

    /**
     * Whether {@code buf} holds a segment of a chunk the calling thread's magazine owns. The segment is live, so the
     * chunk cannot be retired meanwhile: its magazine is fixed.
     */
    private static boolean isCallersSegment(MagByteBuf buf) {
        return buf.memory() instanceof SizeClassChunk
            && ((SizeClassChunk) buf.memory()).lpMagazine().lvOwnerThreadId() == Thread.currentThread().getId();
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
        long freedBytes = supply.freePooledSlabs();
        supply.events.trimmed(freedBytes, reaped, asked, supply.metrics.reservedBytes());
    }

    // ------------------------------------------------------------------ what the metric and the tests read

    /** Whether this pool's memory is direct (else heap). */
    public boolean isDirect() {
        return direct;
    }

    /** The identity hash of the allocator this pool belongs to: what names it in flight-recorder events. */
    public int allocatorId() {
        return System.identityHashCode(allocator());
    }

    public PoolMetrics metrics() {
        return supply.metrics;
    }

    /**
     * Per size class c, {@code [2c]} allocations and {@code [2c + 1]} bytes requested since the pool was made: of
     * live thread magazines, stripes and ended magazines. A snapshot; a magazine ending meanwhile may be counted twice
     * or not at all in it.
     */
    public long[] requestCounts() {
        long[] totals = RequestCounts.newTotals();
        threads.sumRequests(totals);
        stripes.sumRequests(totals);
        supply.metrics.sumEndedRequests(totals);
        return totals;
    }

    /** Bytes of empty chunks and slabs in the reuse pool. */
    public long pooledFreeBytes() {
        return supply.pooledFreeBytes();
    }

    public long reuseBudget() {
        return supply.reuseBudget();
    }

    public int threadMagazineCount() {
        return threads.count();
    }

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
