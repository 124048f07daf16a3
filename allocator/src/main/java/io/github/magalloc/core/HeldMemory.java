package io.github.magalloc.core;

/**
 * What a pool's magazines hold above its {@link ChunkSupply}, as a shortage reaches it (protocol 9 (making room)):
 * the supply knows no magazine, so the pool hands it this when it makes the supply.
 */
interface HeldMemory {
    /** The calling thread's own magazine of the pool, if it has one, gives back what it holds free now. */
    void giveBackHeldByCaller();

    /** The stripes give back their free chunks and unused large chunks, each under its lock. */
    void giveBackShared();

    /** Every thread magazine's unused large chunks are detached by the caller, whoever owns the magazine. */
    void reclaimUnusedLargeChunks();

    /** Every live thread magazine but the caller's is asked to give back what it holds free and answer {@code round}. */
    void askThreadMagazines(GiveBackRound round);
}
