package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The first release into a stripe's chunk from another thread marks the chunk and then, under the stripe's lock,
 * collects the chunk's queue and publishes its free count ({@code Stripe.onFirstRemoteRelease}, protocol 2b (parked
 * chunks)). Meanwhile a lock holder may collect that very segment, make the chunk current, hand the segment out
 * again and park the chunk full once more; the releaser, getting the lock after it, then finds a full chunk with
 * nothing to collect, which must stay among the full chunks: {@code chunk in partial => freeCount > 0}, because a
 * refill makes a partial chunk current without looking, and an allocation from a chunk with no free segment gets
 * segment -1 (a buffer at a negative offset). With that condition planted out (a parked chunk moved to the partial
 * list whatever its free count), this test sees partial chunks with no free segment.
 *
 * <p>Chunk C of 1 segment, parked full (the stripe moved on to a new chunk D of 64); its buffer is released on
 * another thread. The lock holder allocates 66 buffers: D's 63 left, then C's segment (if collected), then a new chunk.
 */
@JCStressTest
@Description("a stripe chunk's first remote release races the lock holder's refills, which collect its segment")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "every partial chunk has a free segment; C's segment accounted once")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "a chunk with no free segment in the partial list")
@Outcome(expect = FORBIDDEN, desc = "C's segment lost or counted twice, or the lock left taken")
@State
public class StripeFirstRemoteReleaseVsRefillStress {
    private static final int HOLDER_ALLOCATIONS = 66;

    private final MemoryPool pool = StressFixtures.newPool();
    private final Stripe stripe = new Stripe(pool.supply());
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, stripe, 1);
    /** Handed out as if on a thread that is neither actor, so its release takes the remote queue. */
    private final MagByteBuf released;
    private final MagByteBuf[] allocated = new MagByteBuf[HOLDER_ALLOCATIONS];

    public StripeFirstRemoteReleaseVsRefillStress() {
        StressFixtures.makeCurrent(stripe, chunk);
        released = pool.supply().context.newBufferObject(new BufferObjectCache(pool.supply().context, new Thread().getId()));
        stripe.lock();
        try {
            if (!stripe.allocate(released, StressFixtures.SIZE_CLASS, 100, Integer.MAX_VALUE, null, true)) {
                throw new IllegalStateException("the test chunk had no free segment");
            }
        } finally {
            stripe.unlock();
        }
        allocated[0] = StressFixtures.allocateTakingLock(pool, stripe); // a new chunk D; C is parked full
        if (allocated[0].memory() == chunk || StressFixtures.isCurrent(chunk) || chunk.list == null) {
            throw new IllegalStateException("the test chunk is not parked");
        }
    }

    @Actor
    public void lockHolder() {
        stripe.lock();
        try {
            for (int i = 1; i < HOLDER_ALLOCATIONS; i++) {
                allocated[i] = StressFixtures.allocate(pool, stripe);
            }
        } finally {
            stripe.unlock();
        }
    }

    @Actor
    public void firstRemoteRelease() {
        released.release();
    }

    /** r1: 1 if every chunk in the partial lists has a free segment; r2: C's one segment is free xor held, and the lock free. */
    @Arbiter
    public void check(II_Result r) {
        r.r1 = StressFixtures.partialChunksHaveFreeSegments(stripe) ? 1 : 0;
        int heldInC = 0;
        for (MagByteBuf buf : allocated) {
            if (buf.memory() == chunk) {
                heldInC++;
            }
        }
        boolean unlocked = stripe.tryLock();
        r.r2 = unlocked && StressFixtures.accountedFree(chunk) + heldInC == 1 ? 1 : 0;
    }
}
