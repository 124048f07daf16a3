package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A stripe's buffer released on a thread other than the one that allocated it goes to the chunk's remote queue,
 * without the stripe's lock ({@link Stripe#releaseFromOtherThread}, protocol 2a (remote releases into a stripe)),
 * while a lock holder allocates twice from that chunk (three segments: one free, two live): the first allocation
 * pops the free segment, the second finds the chunk exhausted and drains the queue. The holder either gets the
 * released segment back or, when the release comes too late, parks the chunk among the others and takes a new
 * chunk. A segment still held by a buffer must never be handed out, the chunk's counts must stay exact (free +
 * queued + live == 3), the lock must end free, and the released object must have gone home (memory forgotten).
 * With the release planted to push onto the local list as the lock holder does, but without the lock, every jcstress
 * sanity configuration fails (outcome {@code 1, 2, 3}: the release reached the local list before the holder's first
 * allocation).
 */
@JCStressTest
@Description("a stripe's foreign release (remote queue, no lock) races the lock holder's refill of that chunk")
@Outcome(id = "1, 0, 3", expect = ACCEPTABLE, desc = "the holder drained the release: the freed segment is handed out again")
@Outcome(id = "0, -1, 3", expect = ACCEPTABLE, desc = "the release came after the drain: chunk parked, a new chunk serves")
@Outcome(id = "1, 1, 3", expect = FORBIDDEN, desc = "the segment still held by a live buffer was handed out")
@Outcome(id = "1, 2, 3", expect = FORBIDDEN, desc = "the release reached the local list, not the remote queue: the "
    + "first allocation took it, the second the segment that was free")
@Outcome(expect = FORBIDDEN, desc = "a segment lost or counted twice, the chunk in a wrong place, the lock left taken, "
    + "or the released object not sent home")
@State
public class StripeRemoteReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final Stripe stripe = new Stripe(pool.supply());
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, stripe, 3);
    /** Handed out as if on a thread that is neither actor (jcstress may build the state on either of them). */
    private final MagByteBuf released;
    private final int releasedSegment;
    private final MagByteBuf stillHeld;
    private MagByteBuf first;
    private MagByteBuf got;

    public StripeRemoteReleaseStress() {
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
        releasedSegment = released.segment();
        stillHeld = StressFixtures.allocateTakingLock(pool, stripe);
    }

    @Actor
    public void lockHolder() {
        stripe.lock();
        try {
            first = StressFixtures.allocate(pool, stripe);
            got = StressFixtures.allocate(pool, stripe);
        } finally {
            stripe.unlock();
        }
    }

    @Actor
    public void foreignRelease() {
        released.release();
    }

    /**
     * r1: the second allocation served from the old chunk; r2: which of its segments (0 the released one, 1 the held
     * one, 2 another), else -1; r3: the chunk's free, queued and live segments, or -1 if anything is out of place.
     */
    @Arbiter
    public void check(III_Result r) {
        boolean fromChunk = got.memory() == chunk;
        r.r1 = fromChunk ? 1 : 0;
        r.r2 = !fromChunk ? -1 : got.segment() == releasedSegment ? 0 : got.segment() == stillHeld.segment() ? 1 : 2;
        int live = 2 + (fromChunk ? 1 : 0);
        boolean placed = (fromChunk ? StressFixtures.isCurrent(chunk) : chunk.isParked()) && first.memory() == chunk;
        boolean clean = stripe.tryLock() && released.memory() == null;
        r.r3 = placed && clean ? StressFixtures.accountedFree(chunk) + live : -1;
    }
}
