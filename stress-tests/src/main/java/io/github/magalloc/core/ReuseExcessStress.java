package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
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
 * The purge of the reuse pool's excess (protocol 3a (the reuse pool's excess)) against an offer that takes the pool
 * above its budget: the pool holds its budget and one slab more, a purge is pending and now runs, and another
 * thread offers a slab. Whatever the interleaving, the pool must not end above its budget with no purge pending
 * (then the excess would stay until the next offer or {@code trim()}): the purge clears its flag and then reads the
 * pool's bytes, the offer adds its bytes and then reads the flag. Outcomes: above the budget, purge pending, purges
 * scheduled by the actors. With the purge planted not to look again after clearing its flag, {@code 1, 0, 0}
 * appears.
 */
@JCStressTest
@Description("an offer above the budget against the pending purge's end")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the purge took the offered slab's excess too")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the offer's excess came after the purge's pass; a new purge is pending")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the offer read the bytes before the purge took its slab: a purge that will find nothing")
@Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "stranded: above the budget with no purge pending")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class ReuseExcessStress {
    private static final int SLAB = SizeClasses.MIN_CHUNK_SIZE;

    private final ReusePool reuse = new ReusePool(SLAB, 4L * SLAB, 4L * SLAB,
        new LargeSlabMisses(1, 1), SLAB);
    /** Counts the purges asked for and runs none: the actor runs the pending one. */
    private int scheduled;
    private final ReuseExcess excess = new ReuseExcess(reuse, slab -> { }, (task, delayMillis) -> scheduled++, 1);
    private final Slab offered = Slab.heap(SLAB);

    public ReuseExcessStress() {
        offerAndCheck(Slab.heap(SLAB));
        offerAndCheck(Slab.heap(SLAB)); // above the budget: the purge the actor runs is pending
        scheduled = 0;
    }

    private void offerAndCheck(Slab slab) {
        if (reuse.offerSlab(slab)) {
            excess.afterOffer();
        }
    }

    @Actor
    public void offer() {
        offerAndCheck(offered);
    }

    @Actor
    public void purge() {
        excess.purge();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = reuse.pooledBytes() > reuse.budget() ? 1 : 0;
        r.r2 = excess.isPurgePending() ? 1 : 0;
        r.r3 = scheduled;
    }
}
