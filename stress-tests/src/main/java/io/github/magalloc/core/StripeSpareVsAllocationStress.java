package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A stripe's only large chunk (4 pages) holds one buffer of 2 pages. One thread releases that buffer, which empties
 * the chunk and counts it as a spare under the stripe's lock ({@link LargeChunks#onEmptied}); a plain thread, holding
 * the lock, allocates 2 pages from the same chunk at once. Whatever the order, the chunk ends in use and not counted
 * as a spare, with the spare count's equations holding (protocol 6 (large chunks)): the count comes after the
 * allocation only if it sees the chunk in use, and an allocation after the count takes the chunk out of it. Planted
 * "count without looking whether the chunk is still unused": the releaser counts a chunk the allocation has just
 * taken, and the arbiter sees it counted while in use; planted "an allocation leaves the count": every order that
 * counts first fails.
 */
@JCStressTest
@Description("a release empties a stripe's large chunk while a lock holder allocates from it")
@Outcome(id = "1, 0, 2, 1", expect = ACCEPTABLE, desc = "the chunk in use, not counted as a spare")
@Outcome(id = "0, 1, 2, 1", expect = FORBIDDEN, desc = "the chunk counted as a spare while a buffer uses it")
@Outcome(expect = FORBIDDEN, desc = "the spare count broken, the pages wrong, or the lock left taken")
@State
public class StripeSpareVsAllocationStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final Stripe stripe = new Stripe(pool.supply());
    private final LargeChunk chunk = StressFixtures.addLargeChunk(pool, stripe, 4);
    private final MagByteBuf held = StressFixtures.largeBufferHolding(pool, chunk, 2);
    private final MagByteBuf taken = StressFixtures.newBufferObject(pool);

    @Actor
    public void release() {
        chunk.release(held, Thread.currentThread().getId());
    }

    @Actor
    public void allocate() {
        stripe.lock();
        try {
            if (!stripe.allocateLarge(taken, 2 * LargeChunk.PAGE_SIZE, Integer.MAX_VALUE, null)) {
                throw new IllegalStateException("the chunk always has two free pages");
            }
        } finally {
            stripe.unlock();
        }
    }

    @Arbiter
    public void check(IIII_Result r) {
        r.r1 = StressFixtures.largeChunksIn(stripe).countsHold() ? 1 : 0;
        r.r2 = chunk.countedAsSpare ? 1 : 0;
        r.r3 = StressFixtures.largePagesInUse(chunk);
        r.r4 = stripe.tryLock() ? 1 : 0;
    }
}
