package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;

/**
 * How a magazine's owner gives back to the supply what it retires or no longer needs: at once ({@link AtOnce}, a
 * thread magazine's owner, who holds no lock), or after its unlock ({@link GivenBackAfterUnlock}, the holder of a
 * shared magazine's spin lock).
 */
interface GiveBack {
    /** An entirely free chunk, out of every list ({@link ChunkSupply#retireChunk}). */
    void chunk(SizeClassChunk chunk);

    /** A slab taken for a refill that found other room ({@link ChunkSupply#releaseSlab}). */
    void spare(Slab slab);

    /** A slab taken for a large chunk that found other room ({@link ChunkSupply#releaseLargeSlab}). */
    void largeSpare(Slab slab);

    /** The slab of a detached large chunk no buffer uses ({@link ChunkSupply#retireLargeChunk}). */
    void largeChunk(Slab slab);

    /** Straight to the supply. */
    final class AtOnce implements GiveBack {
        private final ChunkSupply supply;

        AtOnce(ChunkSupply supply) {
            this.supply = supply;
        }

        @Override
        public void chunk(SizeClassChunk chunk) {
            supply.retireChunk(chunk);
        }

        @Override
        public void spare(Slab slab) {
            supply.releaseSlab(slab);
        }

        @Override
        public void largeSpare(Slab slab) {
            supply.releaseLargeSlab(slab);
        }

        @Override
        public void largeChunk(Slab slab) {
            supply.retireLargeChunk(slab);
        }
    }
}
