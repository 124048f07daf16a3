package io.github.magalloc.core;

/**
 * What a pool tells an observer (flight-recorder events, for one) about its cold paths: slabs, chunks, the reuse
 * pool, thread magazines, trim and memory exhaustion. Never called per buffer. Every argument is a plain value,
 * computed by the pool, so an observer needs nothing of the pool's internals. Calls may come from any thread and
 * at the same time; an implementation must not allocate from the pool nor throw.
 */
public interface PoolEvents {
    /** Observes nothing. */
    PoolEvents NONE = new PoolEvents() {
    };

    /**
     * A slab was taken from the system.
     *
     * @param size the slab's size in bytes
     * @param pooled true for a slab for chunks, false for one huge buffer's
     * @param address the start of a direct slab's memory when known, else 0
     * @param reservedBytes bytes of every slab the pool holds afterwards
     */
    default void slabAllocated(int size, boolean pooled, long address, long reservedBytes) {
    }

    /**
     * A slab went back to the system.
     *
     * @param size the slab's size in bytes
     * @param pooled true for a slab of chunks, false for a huge buffer's
     * @param address the start of a direct slab's memory when known, else 0
     * @param reservedBytes bytes of every slab the pool holds afterwards
     */
    default void slabFreed(int size, boolean pooled, long address, long reservedBytes) {
    }

    /**
     * A slab did not fit under the limit (or the system refused it): room was made in every pool of the kind
     * (protocol 9 (making room)), and the slab taken in the end if it could be; if not, the caller throws an
     * {@link OutOfMemoryError} next.
     *
     * @param requested the slab's size in bytes
     * @param freedBytes bytes given back while making room
     * @param recovered true if the slab was taken in the end
     * @param reservedBytes bytes of every slab the pool holds afterwards
     * @param limit the JVM's limit for this kind of memory, in bytes (max direct memory or max heap)
     * @param makingRoomNanos how long making room took, in nanoseconds
     * @param unansweredThreads how many thread magazines asked to give back had not answered in time
     * @param firstError the message of the system's refusal if the system was asked and refused, else null
     */
    default void memoryExhausted(int requested, long freedBytes, boolean recovered, long reservedBytes, long limit,
                                 long makingRoomNanos, int unansweredThreads, String firstError) {
    }

    /**
     * A magazine put a chunk to use.
     *
     * @param sizeClass the chunk's size class index
     * @param chunkSize the size of the chunk's slab, in bytes
     * @param activeChunks the number of chunks of the class in use afterwards
     * @param threadMagazine true for a thread's magazine, false for a stripe
     * @param reused true if the chunk was taken whole from the reuse pool, false if it was cut from a slab
     */
    default void chunkActivated(int sizeClass, int chunkSize, long activeChunks, boolean threadMagazine,
                                boolean reused) {
    }

    /**
     * An entirely free chunk left its magazine.
     *
     * @param sizeClass the chunk's size class index
     * @param chunkSize the size of the chunk's slab, in bytes
     * @param activeChunks the number of chunks of the class in use afterwards
     * @param pooled true if the chunk is kept whole in the reuse pool, false if its slab went back to the system
     */
    default void chunkRetired(int sizeClass, int chunkSize, long activeChunks, boolean pooled) {
    }

    /**
     * A magazine looked in the reuse pool for memory for a new chunk.
     *
     * @param sizeClass the size class index of the chunk, or -1 for a slab for a large chunk
     * @param slabSize the size of the slab found, in bytes, or 0 if nothing was found
     * @param wholeChunk true if what was found is a whole chunk of the class, ready to use
     * @param pooledFreeBytes bytes the reuse pool holds afterwards
     */
    default void reusePoolTake(int sizeClass, int slabSize, boolean wholeChunk, long pooledFreeBytes) {
    }

    /**
     * {@code trim()} ran on the pool.
     *
     * @param freedBytes bytes of pooled slabs it gave back to the system
     * @param reapedMagazines magazines of dead threads it ended
     * @param threadMagazines live thread magazines it asked to give back their empty chunks at their next refill
     * @param reservedBytes bytes of every slab the pool holds afterwards
     */
    default void trimmed(long freedBytes, int reapedMagazines, int threadMagazines, long reservedBytes) {
    }

    /**
     * A thread got a magazine of its own.
     *
     * @param threadMagazines the number of thread magazines afterwards
     */
    default void magazineCreated(int threadMagazines) {
    }

    /**
     * A thread's magazine ended.
     *
     * @param ownerThreadId {@link Thread#getId()} of the magazine's thread
     * @param ownerThreadName the thread's name, or null if the thread object is gone
     * @param reaped true if another thread ended it, having found its owner dead
     * @param heldBytes slab bytes of the size-classed chunks it held when it ended
     * @param stillHeldBytes slab bytes of those chunks that still hold live buffers
     * @param stillHeldChunks the number of those chunks
     * @param endedThreadsBytes bytes every ended magazine of the pool holds afterwards
     */
    default void magazineEnded(long ownerThreadId, String ownerThreadName, boolean reaped, long heldBytes,
                               long stillHeldBytes, int stillHeldChunks, long endedThreadsBytes) {
    }
}
