package io.github.magalloc.core;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A remote releaser reads the queue's size (as its assert {@code |remoteFrees| <= segmentCount} does, on a thread
 * that is not the owner) while the owner drains a full queue of capacity 2 and two more releases fill it again. The
 * queue never holds more than 2, so no size above 2 is true at any instant. A size that reads the consumer index
 * before the drain and the producer index after the refills returns 4 (or 3): the assert would fail a correct run.
 */
@JCStressTest
@Description("MPSC int queue, capacity 2, full: size() on another thread while the owner drains and it fills again")
@Outcome(id = {"0", "1", "2"}, expect = ACCEPTABLE, desc = "a size the queue had at some instant")
@Outcome(expect = FORBIDDEN, desc = "above the capacity: the two indexes read across a drain and its refills")
@State
public class MpscIntQueueSizeStress {
    private final MpscIntQueue queue = new MpscIntQueue(2);
    private final int[] drained = new int[2];

    public MpscIntQueueSizeStress() {
        queue.offer(1);
        queue.offer(2);
    }

    @Actor
    public void releaserReadsSize(I_Result r) {
        r.r1 = queue.size();
    }

    /** The owner drains; the releases that follow (any thread may offer) fill the queue again. */
    @Actor
    public void ownerDrainsThenReleasesRefill() {
        queue.drainTo(drained, 0, 2);
        queue.offer(3);
        queue.offer(4);
    }
}
