package io.github.magalloc;

import io.github.magalloc.core.MemoryPool;
import io.github.magalloc.core.SizeClasses;
import io.netty.buffer.ByteBufAllocatorMetric;

/**
 * What a {@link MagazineByteBufAllocator} holds. Reads are snapshots, which may be slightly out of date under
 * concurrent use: of counters kept on cold paths, and of the per size class allocations and requested bytes, which
 * each magazine's owner counts with two plain additions per allocation.
 */
public final class MagazineByteBufAllocatorMetric implements ByteBufAllocatorMetric {
    private final MemoryPool heap;
    private final MemoryPool direct;

    MagazineByteBufAllocatorMetric(MemoryPool heap, MemoryPool direct) {
        this.heap = heap;
        this.direct = direct;
    }

    /** Heap bytes held from the JVM: chunks in use, empty slabs kept for reuse, and huge buffers. */
    @Override
    public long usedHeapMemory() {
        return heap.metrics().reservedBytes();
    }

    /** Direct bytes held from the system: chunks in use, empty slabs kept for reuse, and huge buffers. */
    @Override
    public long usedDirectMemory() {
        return direct.metrics().reservedBytes();
    }

    /**
     * Bytes of empty chunks and slabs waiting in the reuse pool (pooled but free).
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return the bytes, 0 or more; part of {@link #usedHeapMemory()} or {@link #usedDirectMemory()}
     */
    public long pooledFreeMemory(boolean isDirect) {
        return pool(isDirect).pooledFreeBytes();
    }

    /**
     * Bytes of the live buffers above the pooling limit ({@link MagazineAllocatorConfig#maxPooledSize()}), each
     * with a slab of its own.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return the bytes of their slabs, 0 or more
     */
    public long hugeMemory(boolean isDirect) {
        return pool(isDirect).metrics().hugeBytes();
    }

    /**
     * The reuse pool's byte budget per memory type: heap and direct have the same.
     *
     * @return {@link MagazineAllocatorConfig#reuseBudgetBytes()}; with decay on, a pool may hold more than this for
     *         a decay period ({@link MagazineAllocatorConfig.Builder#reuseBudgetBytes(long)})
     */
    public long reuseBudget() {
        return heap.reuseBudget();
    }

    /**
     * The number of size classes.
     *
     * @return the count, the same for every allocator (33 in this version)
     */
    public int sizeClassCount() {
        return SizeClasses.COUNT;
    }

    /**
     * Segment size of size class {@code index}: the bytes each buffer of the class takes.
     *
     * @param index the size class, {@code 0 <= index < sizeClassCount()}; another value throws
     *              {@link IndexOutOfBoundsException}
     * @return the size in bytes, from 16 (index 0) to 32,768 (the last index), ascending with the index
     */
    public int sizeClassSize(int index) {
        return SizeClasses.sizeOf(index);
    }

    /**
     * Chunks of size class {@code index} alive now (current, partly used, or full), in every magazine.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @param index the size class, {@code 0 <= index < sizeClassCount()}; another value throws
     *              {@link IndexOutOfBoundsException}
     * @return the number of chunks, 0 or more
     */
    public long activeChunks(boolean isDirect, int index) {
        return pool(isDirect).metrics().activeChunks(index);
    }

    /**
     * Large chunks (for requests above the size classes) whose memory is still held: by a magazine, or after their
     * magazine let go, by live buffers in them. Each magazine keeps the chunks its live large buffers use plus a few
     * empty spares (the biggest one, or more up to a share of the bytes in use: protocol 6 (large chunks) in
     * docs/design.md).
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return the number of large chunks, 0 or more
     */
    public long activeLargeChunks(boolean isDirect) {
        return pool(isDirect).metrics().largeChunks();
    }

    /**
     * How often a magazine needed a chunk of size class {@code index} that it did not have (new, or taken from
     * the reuse pool) since the allocator started: a slow-path counter.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @param index the size class, {@code 0 <= index < sizeClassCount()}; another value throws
     *              {@link IndexOutOfBoundsException}
     * @return the count, never decreasing
     */
    public long chunkActivations(boolean isDirect, int index) {
        return pool(isDirect).metrics().chunkActivations(index);
    }

    /**
     * Allocations and bytes requested per size class since the allocator started, summed over every magazine once:
     * read every class from one snapshot rather than calling {@link #allocations} and its siblings per class, each of
     * which sums every magazine again. Counted by each magazine's owner with plain writes (a thread magazine's current
     * chunk adds its counts when it stops being current or at a decay tick), so a snapshot may lag; a buffer that
     * moves (growth, a shrink) is no new request and is not counted.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return a new snapshot, which does not change after it is taken
     */
    public SizeClassRequests sizeClassRequests(boolean isDirect) {
        return new SizeClassRequests(pool(isDirect).requestCounts());
    }

    /**
     * Buffers of size class {@code index} allocated since the allocator started. With {@link #requestedBytes} it
     * shows the class's rounding: {@code allocations(d, i) * sizeClassSize(i)} bytes handed out for
     * {@code requestedBytes(d, i)} asked for. Each call takes a {@link #sizeClassRequests} snapshot of its own.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @param index the size class, {@code 0 <= index < sizeClassCount()}
     * @return the number of buffers, 0 or more
     */
    public long allocations(boolean isDirect, int index) {
        return sizeClassRequests(isDirect).allocations(index);
    }

    /**
     * Bytes requested (initial capacities) by the allocations of size class {@code index}; see
     * {@link #allocations}.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @param index the size class, {@code 0 <= index < sizeClassCount()}
     * @return the bytes, 0 or more
     */
    public long requestedBytes(boolean isDirect, int index) {
        return sizeClassRequests(isDirect).requestedBytes(index);
    }

    /**
     * Bytes handed out to the allocations of size class {@code index}: allocations times the class's size.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @param index the size class, {@code 0 <= index < sizeClassCount()}; another value throws
     *              {@link IndexOutOfBoundsException}
     * @return the bytes, {@code allocations(isDirect, index) * sizeClassSize(index)} of one snapshot
     */
    public long handedOutBytes(boolean isDirect, int index) {
        return sizeClassRequests(isDirect).handedOutBytes(index);
    }

    /**
     * Slabs taken from the system since the allocator started (a slow-path counter): for chunks and for huge
     * buffers.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return the count, never decreasing
     */
    public long slabsAllocated(boolean isDirect) {
        return pool(isDirect).metrics().slabsAllocated();
    }

    /**
     * Slabs given back to the system since the allocator started.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return the count, never decreasing
     */
    public long slabsFreed(boolean isDirect) {
        return pool(isDirect).metrics().slabsFreed();
    }

    /**
     * Magazines of live threads (event loops, opted-in threads); a thread that died without cleaning up counts
     * until the allocator notices (at a new thread magazine or {@link MagazineByteBufAllocator#trim()}).
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return the number of thread magazines, 0 or more
     */
    public int threadLocalMagazines(boolean isDirect) {
        return pool(isDirect).threadMagazineCount();
    }

    /**
     * Bytes of chunks still held by the magazines of threads that have ended (exited, detached or died). Each such
     * chunk goes back to the reuse pool or the system as soon as its last buffer is released, on whatever thread,
     * with no {@code trim()}: once every buffer allocated by ended threads is released, this is 0.
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return the bytes of those chunks' slabs, 0 or more
     */
    public long endedThreadsMemory(boolean isDirect) {
        return pool(isDirect).metrics().endedThreadsBytes();
    }

    /**
     * Thread magazines ended since the allocator started (threads that exited, detached or died).
     *
     * @param isDirect true for the direct memory pool, false for the heap one
     * @return the count, never decreasing
     */
    public long endedThreadMagazines(boolean isDirect) {
        return pool(isDirect).metrics().magazinesEnded();
    }

    /**
     * The number of shared magazines each memory pool has, for threads without a magazine of their own.
     *
     * @return {@link MagazineAllocatorConfig#sharedMagazines()}, a power of two from 1 to 1024
     */
    public int sharedMagazines() {
        return heap.stripeCount();
    }

    private MemoryPool pool(boolean isDirect) {
        return isDirect ? direct : heap;
    }

    @Override
    public String toString() {
        return "MagazineByteBufAllocatorMetric{usedHeapMemory=" + usedHeapMemory()
            + ", usedDirectMemory=" + usedDirectMemory()
            + ", pooledFreeHeap=" + pooledFreeMemory(false) + ", pooledFreeDirect=" + pooledFreeMemory(true)
            + ", threadLocalMagazines=" + threadLocalMagazines(true) + '}';
    }
}
