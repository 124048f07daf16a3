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
 * The last two buffers of a stripe's parked chunk come back at once: one on the thread that allocated it (under the
 * lock, onto the local list), one on another thread (the chunk's remote queue, no lock). Whichever sees the chunk
 * empty retires it: the local release compares its free count with the queue's size, the remote one the queue's size
 * with the count the lock holder publishes ({@code parkedFreeCount}, {@code Stripe.publishParkedFreeCount}; protocol
 * 2b (parked chunks)). Each writes its count before reading the other's, both with volatile writes (Dekker's
 * handshake), so at least one sees the chunk empty, and the lock lets only one retire it. A missed retirement would
 * leave the empty chunk to the next allocation of its size on that stripe or to {@code trim()}, which a stripe that
 * plain threads stopped using may never see. With the holder's write planted as a release store, 27 of 28
 * quick-mode configurations fail ({@code 0, 0, 1}, 270 times in 1.35 million samples).
 *
 * <p>Chunk of 4 segments, parked (the stripe moved on to a new chunk); one segment released on the allocating thread
 * and one on another thread before the race (that first remote release marked the chunk and published its count under
 * the lock, {@code Stripe.onFirstRemoteRelease}), two held.
 */
@JCStressTest
@Description("the last local and the last remote release of a stripe's parked chunk race: the chunk must go back once")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "retired exactly once, its counts whole, the lock free")
@Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "neither release saw the chunk empty: it stays with the stripe")
@Outcome(expect = FORBIDDEN, desc = "retired twice or while held, a segment lost or doubled, a release threw, or the "
    + "lock left taken")
@State
public class StripeParkedChunkLastReleasesStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final Stripe stripe = new Stripe(pool.supply());
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, stripe, 4);
    /** The thread that allocated the buffers (this constructor's); the local actor plays it. */
    private final long allocatingThreadId = Thread.currentThread().getId();
    /** Any other thread; the remote actor plays it. */
    private final long otherThreadId = new Thread().getId();
    private final MagByteBuf releasedLocally;
    private final MagByteBuf releasedRemotely;
    private final int retiredBefore;

    public StripeParkedChunkLastReleasesStress() {
        StressFixtures.makeCurrent(stripe, chunk);
        MagByteBuf releasedEarlier = StressFixtures.allocateTakingLock(pool, stripe);
        MagByteBuf releasedEarlierRemotely = StressFixtures.allocateTakingLock(pool, stripe);
        releasedLocally = StressFixtures.allocateTakingLock(pool, stripe);
        releasedRemotely = StressFixtures.allocateTakingLock(pool, stripe);
        if (StressFixtures.allocateTakingLock(pool, stripe).memory() == chunk) { // the stripe takes a new chunk and parks ours
            throw new IllegalStateException("the test chunk had a fifth segment");
        }
        chunk.release(releasedEarlier, allocatingThreadId);
        chunk.release(releasedEarlierRemotely, otherThreadId);
        if (chunk.freeCount != 2 || !chunk.lvRemotelyReleased() || chunk.lvParkedFreeCount() != 2 || StressFixtures.isCurrent(chunk)
            || chunk.list == null) {
            throw new IllegalStateException("the test chunk is not parked, marked, with two free segments");
        }
        retiredBefore = StressFixtures.retired(pool);
    }

    @Actor
    public void lastLocalRelease() {
        chunk.release(releasedLocally, allocatingThreadId);
    }

    @Actor
    public void lastRemoteRelease() {
        chunk.release(releasedRemotely, otherThreadId);
    }

    /** r1: chunks retired; r2: 1 if the chunk left the stripe (no magazine, no list); r3: 1 if all 4 segments are free and the lock is free. */
    @Arbiter
    public void check(III_Result r) {
        r.r1 = StressFixtures.retired(pool) - retiredBefore;
        r.r2 = chunk.lpMagazine() == null && chunk.list == null ? 1 : 0;
        r.r3 = StressFixtures.accountedFree(chunk) == 4 && stripe.tryLock() ? 1 : 0;
    }
}
