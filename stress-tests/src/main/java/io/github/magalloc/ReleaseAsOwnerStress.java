package io.github.magalloc;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Set;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Release through a shared magazine's lock ({@link Magazine#tryLockAsOwner}): one plain thread releases a buffer
 * of a shared magazine while another allocates from that magazine under its lock and then releases a second
 * buffer of it. A release that gets the lock frees its segment and object as the owner; one that finds the lock
 * busy takes the remote path. Either way every
 * segment and every buffer object must come back exactly once, the allocation must not get a segment that is still
 * held, and the magazine must end unlocked and owned by nobody.
 *
 * <p>Chunk of 4 segments: A, B and H (held throughout) are allocated up front, so 1 is free; after the race A and B
 * are free again and C holds one: 2 free.
 */
@JCStressTest
@Description("a release as owner of a shared magazine races an allocation under its lock and another release")
@Outcome(id = "2, 1, 1", expect = ACCEPTABLE, desc = "every segment and object came back once")
@Outcome(expect = FORBIDDEN, desc = "a segment lost or doubled, a held segment handed out, an object recycled twice, "
    + "a release threw, or the lock or owner left behind")
@State
public class ReleaseAsOwnerStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final Magazine stripe = Magazine.shared(pool);
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, stripe, 4);
    private final MagByteBuf a;
    private final MagByteBuf b;
    private final MagByteBuf held;
    private MagByteBuf c;
    private int errors;

    public ReleaseAsOwnerStress() {
        StressFixtures.makeCurrent(stripe, chunk);
        a = allocate();
        b = allocate();
        held = allocate();
    }

    private MagByteBuf allocate() {
        return stripe.allocate(StressFixtures.SIZE_CLASS, StressFixtures.SEGMENT_SIZE, StressFixtures.SEGMENT_SIZE);
    }

    @Actor
    public void releaseA() {
        if (!a.release()) {
            errors |= 1;
        }
    }

    @Actor
    public void allocateThenReleaseB() {
        stripe.lock.lock();
        try {
            c = allocate();
        } finally {
            stripe.lock.unlock();
        }
        if (!b.release()) {
            errors |= 2;
        }
    }

    @Arbiter
    public void check(III_Result r) {
        boolean unlocked = stripe.lock.tryLock();
        boolean ownerless = stripe.ownerThreadId == Magazine.NO_OWNER;
        chunk.drainRemote();
        r.r1 = chunk.freeCount;
        r.r2 = errors == 0 && freeSegmentsDistinctAndNotHeld() ? 1 : 0;
        r.r3 = unlocked && ownerless && recycledObjectsDistinct() ? 1 : 0;
    }

    /** The free list holds no segment twice and neither H's nor C's. */
    private boolean freeSegmentsDistinctAndNotHeld() {
        Set<Integer> free = new HashSet<>();
        for (int i = 0; i < chunk.freeCount; i++) {
            free.add(chunk.freeSegments[i]);
        }
        return c.segment != held.segment && free.size() == chunk.freeCount
            && !free.contains(held.segment) && !free.contains(c.segment);
    }

    /** C's object and the next objects the magazine hands out are all different, and none is H's. */
    private boolean recycledObjectsDistinct() {
        Set<MagByteBuf> objects = Collections.newSetFromMap(new IdentityHashMap<>());
        objects.add(held);
        objects.add(c);
        for (int i = 0; i < 3; i++) {
            if (!objects.add(stripe.takeBufferObject())) {
                return false;
            }
        }
        return objects.size() == 5;
    }
}
