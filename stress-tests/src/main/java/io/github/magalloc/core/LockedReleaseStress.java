package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.util.HashSet;
import java.util.Set;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Release into a stripe ({@link Stripe#releaseFromOtherThread}) on the thread that allocated the buffer (a stripe
 * takes other threads' releases through the chunk's remote queue: {@link StripeRemoteReleaseStress}): each of two
 * threads allocates a buffer under the stripe's lock and releases it, and the second then allocates again. A
 * release frees its segment under the lock, waiting for it while the other thread holds it, and finishes there:
 * nothing is left for the holder (protocol 2 (stripes)). Every segment and every buffer object must come back
 * exactly once, an allocation must not get a segment that is still held, and the stripe must end unlocked. With
 * the release planted to push its segment without the lock, 3 of 28 sanity configurations fail ({@code 1, 1, 1}: a
 * segment lost). Outcome {@code 1, 1, 0} is a release left unfinished with the lock free, which a release that
 * queued its buffer for the holder instead of waiting could cause (the store-buffering case of
 * {@link PaddedSpinLock}).
 *
 * <p>Chunk of 4 segments: H is held throughout; after the race A and B are free again and C holds one: 2 free.
 */
@JCStressTest
@Description("a release into a shared magazine races an allocation under its lock and another release")
@Outcome(id = "2, 1, 1", expect = ACCEPTABLE, desc = "every segment and object came back once, the lock free")
@Outcome(id = "1, 1, 0", expect = FORBIDDEN, desc = "a release was left unfinished with the lock free")
@Outcome(expect = FORBIDDEN, desc = "a segment lost or doubled, a held segment handed out, an object recycled twice or "
    + "not at all, a release threw, or the lock left taken")
@State
public class LockedReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final Stripe stripe = new Stripe(pool.supply());
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, stripe, 4);
    private final MagByteBuf held;
    private MagByteBuf a;
    private MagByteBuf b;
    private MagByteBuf c;
    private int errors;

    public LockedReleaseStress() {
        StressFixtures.makeCurrent(stripe, chunk);
        held = StressFixtures.allocateTakingLock(pool, stripe);
    }

    @Actor
    public void allocateThenReleaseA() {
        a = allocateLocked();
        if (!a.release()) {
            errors |= 1;
        }
    }

    @Actor
    public void allocateThenReleaseBThenAllocateC() {
        b = allocateLocked();
        if (!b.release()) {
            errors |= 2;
        }
        c = allocateLocked();
    }

    /** An allocation as a plain thread makes it: under the lock, with an object of the calling thread's own. */
    private MagByteBuf allocateLocked() {
        stripe.lock();
        try {
            return StressFixtures.allocate(pool, stripe);
        } finally {
            stripe.unlock();
        }
    }

    @Arbiter
    public void check(III_Result r) {
        boolean unlocked = stripe.tryLock();
        r.r1 = chunk.freeCount;
        r.r2 = errors == 0 && freeSegmentsDistinctAndNotHeld() ? 1 : 0;
        r.r3 = unlocked && recycledOnce(a) && recycledOnce(b) ? 1 : 0;
    }

    /** The free list holds no segment twice and neither H's nor C's. */
    private boolean freeSegmentsDistinctAndNotHeld() {
        Set<Integer> free = new HashSet<>();
        for (int i = 0; i < chunk.freeCount; i++) {
            free.add(chunk.freeSegments[i]);
        }
        return c.segment() != held.segment() && chunk.remoteFrees.isEmpty() && free.size() == chunk.freeCount
            && !free.contains(held.segment()) && !free.contains(c.segment());
    }

    /** Released and sent home: its memory forgotten, and exactly one object in its home cache. */
    private static boolean recycledOnce(MagByteBuf buf) {
        BufferObjectCache home = (BufferObjectCache) buf.home();
        return buf.memory() == null && home.take() == buf && home.take() != buf;
    }
}
