package io.github.magalloc.core;

/**
 * The settings one {@link MemoryPool} works with, already checked by the allocator's configuration
 * ({@code MagazineAllocatorConfig}, which documents each one).
 *
 * @param reuseBudgetBytes bytes of empty slabs the reuse pool keeps
 * @param maxPooledSize largest request served from pooled memory; larger ones get memory of their own
 * @param maxLargeChunkSize largest slab cut into pages for requests above the size classes
 * @param sharedMagazines number of stripes (a power of two)
 * @param threadLocalMagazinesForAllThreads whether every thread gets a magazine of its own
 * @param decayMillis period of an event loop's magazine's decay tick (protocol 7 (decay)); 0 for none
 * @param nativeTrimMillis least time between two trims of the C heap after direct memory went back to it
 *                         (protocol 3b (resident memory)); 0 for none
 * @param debug whether freed memory is poisoned and buffer objects are never reused
 */
public record PoolSettings(long reuseBudgetBytes, int maxPooledSize, int maxLargeChunkSize, int sharedMagazines,
                           boolean threadLocalMagazinesForAllThreads, long decayMillis, long nativeTrimMillis,
                           boolean debug) {
}
