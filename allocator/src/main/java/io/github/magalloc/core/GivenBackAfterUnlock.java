package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
import io.github.magalloc.buffer.SlabStack;

/**
 * What the holder of a shared magazine's spin lock (a {@link Stripe}'s, an {@link EndedMagazine}'s) retires or lets go
 * of, given back by the same thread right after its unlock. Giving back may free a slab (a shared arena's close is a
 * handshake with every thread), take the reuse pool's lock, or start one of magalloc's threads (a purge, a close or a
 * trim due): none of which a lock holder may do, as the threads waiting for the lock would wait for it too
 * ({@link SpinLock}: a holder never blocks, parks or starts a thread).
 *
 * <pre>
 *   whenever the lock is free:  nothing here        (the unlocking holder took it all, and gives it back)
 * </pre>
 * Guarded by the lock; linked through the chunks and slabs themselves (a retired chunk is in no reuse pool, a slab
 * here in no stack), so that it makes no garbage.
 */
final class GivenBackAfterUnlock implements GiveBack {
    /** Entirely free chunks, out of every list: {@link ChunkSupply#retireChunk}. */
    private SizeClassChunk chunks;
    /** Slabs a caller took for a refill that found other room: {@link ChunkSupply#releaseSlab}. */
    private SlabStack spares;
    /** Slabs a caller took for a large chunk that found other room: {@link ChunkSupply#releaseLargeSlab}. */
    private SlabStack largeSpares;
    /** Slabs of detached large chunks no buffer uses: {@link ChunkSupply#retireLargeChunk}. */
    private SlabStack largeChunks;
    private boolean any;

    @Override
    public void chunk(SizeClassChunk chunk) {
        chunk.nextPooled = chunks;
        chunks = chunk;
        any = true;
    }

    @Override
    public void spare(Slab slab) {
        spares = push(spares, slab);
    }

    @Override
    public void largeSpare(Slab slab) {
        largeSpares = push(largeSpares, slab);
    }

    @Override
    public void largeChunk(Slab slab) {
        largeChunks = push(largeChunks, slab);
    }

    private SlabStack push(SlabStack stack, Slab slab) {
        SlabStack to = stack != null ? stack : new SlabStack(); // cold: a lock holder gives slabs back rarely
        to.push(slab);
        any = true;
        return to;
    }

    /** Lock holder, about to unlock: whether anything waits (one plain read on every unlock). */
    boolean any() {
        return any;
    }

    /** Lock holder, about to unlock: takes everything, for {@link Batch#giveBack} after the unlock. */
    Batch takeAll() {
        Batch batch = new Batch(chunks, spares, largeSpares, largeChunks);
        chunks = null;
        spares = null;
        largeSpares = null;
        largeChunks = null;
        any = false;
        return batch;
    }

    /** What one holder took before its unlock; given back after it, by the same thread, holding no lock. */
    static final class Batch {
        private final SizeClassChunk chunks;
        private final SlabStack spares;
        private final SlabStack largeSpares;
        private final SlabStack largeChunks;

        private Batch(SizeClassChunk chunks, SlabStack spares, SlabStack largeSpares, SlabStack largeChunks) {
            this.chunks = chunks;
            this.spares = spares;
            this.largeSpares = largeSpares;
            this.largeChunks = largeChunks;
        }

        void giveBack(ChunkSupply supply) {
            for (SizeClassChunk chunk = chunks, next; chunk != null; chunk = next) {
                next = chunk.nextPooled;
                chunk.nextPooled = null;
                supply.retireChunk(chunk);
            }
            for (Slab slab; spares != null && (slab = spares.pop()) != null; ) {
                supply.releaseSlab(slab);
            }
            for (Slab slab; largeSpares != null && (slab = largeSpares.pop()) != null; ) {
                supply.releaseLargeSlab(slab);
            }
            for (Slab slab; largeChunks != null && (slab = largeChunks.pop()) != null; ) {
                supply.retireLargeChunk(slab);
            }
        }
    }
}
