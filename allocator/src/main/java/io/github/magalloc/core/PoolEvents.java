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
     * A slab of {@code size} bytes was taken from the system: for chunks ({@code pooled}) or for one huge buffer;
     * {@code address} its start when known, else 0; {@code reservedBytes} what the pool holds afterwards.
     */
    default void slabAllocated(int size, boolean pooled, long address, long reservedBytes) {
    }

    /** A slab went back to the system; arguments as in {@link #slabAllocated}. */
    default void slabFreed(int size, boolean pooled, long address, long reservedBytes) {
    }

    /**
     * A slab of {@code requested} bytes did not fit under the limit (or the system refused it): room was made in every
     * pool of the kind (protocol 9 (making room)), {@code freedBytes} given back in {@code makingRoomNanos}, and the
     * slab taken in the end if {@code recovered}. {@code unansweredThreads} magazines asked had not answered;
     * {@code limit} is the JVM's limit for this kind of memory, {@code firstError} the system's refusal, if the
     * system was asked and refused (else null).
     */
    default void memoryExhausted(int requested, long freedBytes, boolean recovered, long reservedBytes, long limit,
                                 long makingRoomNanos, int unansweredThreads, String firstError) {
    }

    /**
     * A magazine ({@code threadMagazine}, or a stripe) put a chunk of {@code sizeClass} on a slab of
     * {@code chunkSize} bytes to use: taken whole from the reuse pool if {@code reused}, else cut from a slab.
     * {@code activeChunks} is the class's chunk count afterwards.
     */
    default void chunkActivated(int sizeClass, int chunkSize, long activeChunks, boolean threadMagazine,
                                boolean reused) {
    }

    /** An entirely free chunk left its magazine: kept whole in the reuse pool if {@code pooled}, else freed. */
    default void chunkRetired(int sizeClass, int chunkSize, long activeChunks, boolean pooled) {
    }

    /**
     * A magazine looked in the reuse pool for a chunk of {@code sizeClass} (-1: a slab for a large chunk) and found
     * a slab of {@code slabSize} bytes (0: nothing), as a whole chunk of the class if {@code wholeChunk}.
     * {@code pooledFreeBytes} is what the reuse pool holds afterwards.
     */
    default void reusePoolTake(int sizeClass, int slabSize, boolean wholeChunk, long pooledFreeBytes) {
    }

    /**
     * {@code trim()} gave {@code freedBytes} back to the system, ended {@code reapedMagazines} magazines of dead
     * threads and asked {@code threadMagazines} live ones to give back their empty chunks.
     */
    default void trimmed(long freedBytes, int reapedMagazines, int threadMagazines, long reservedBytes) {
    }

    /** A thread got a magazine of its own; {@code threadMagazines} live afterwards. */
    default void magazineCreated(int threadMagazines) {
    }

    /**
     * The magazine of thread {@code ownerThreadId} ({@code ownerThreadName}, null if the thread object is gone)
     * ended; {@code reaped} if another thread found its owner dead. It held {@code heldBytes} of chunks, of which
     * {@code stillHeldBytes} in {@code stillHeldChunks} chunks still hold live buffers;
     * {@code endedThreadsBytes} is what all ended magazines hold afterwards.
     */
    default void magazineEnded(long ownerThreadId, String ownerThreadName, boolean reaped, long heldBytes,
                               long stillHeldBytes, int stillHeldChunks, long endedThreadsBytes) {
    }
}
