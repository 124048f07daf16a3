package io.github.magalloc.core;

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
 * The consumer's drain, as the owner of a chunk drains it, reads the first slot past the requested capacity
 * (capacity 3, array of 4) on the queue's first lap while a producer publishes into it. Such a slot left at 0
 * instead of EMPTY (the array rounded up to a power of two, and only the requested slots initialised) would make
 * the drain invent the value 0.
 */
@JCStressTest
@Description("MPSC int queue, capacity 3: a drain of slot 3 on the first lap races the offer that fills it")
@Outcome(id = "1, 7, -1", expect = ACCEPTABLE, desc = "offer published first; the drain takes 7")
@Outcome(id = "1, -1, 7", expect = ACCEPTABLE, desc = "the drain ran before the publish (or between claim and publish); 7 stays queued")
@Outcome(id = {"1, 0, -1", "1, 0, 7"}, expect = FORBIDDEN, desc = "the drain invented 0 from an uninitialised slot")
@Outcome(expect = FORBIDDEN, desc = "a value lost, duplicated or invented, or the offer refused below capacity")
@State
public class MpscIntQueueFirstLapStress {
    private final MpscIntQueue queue = new MpscIntQueue(3);

    public MpscIntQueueFirstLapStress() {
        // Move both indices to 3: slots 0-2 used and emptied; slot 3 (past the capacity) never written.
        for (int i = 0; i < 3; i++) {
            queue.offer(100 + i);
        }
        drainOne();
        drainOne();
        drainOne();
    }

    @Actor
    public void producer(III_Result r) {
        r.r1 = queue.offer(7) ? 1 : 0;
    }

    @Actor
    public void consumer(III_Result r) {
        r.r2 = drainOne();
    }

    @Arbiter
    public void rest(III_Result r) {
        r.r3 = drainOne();
        if (drainOne() != MpscIntQueue.EMPTY || !queue.isEmpty()) {
            r.r3 = 1000; // something beyond what was offered
        }
    }

    /** The oldest value or EMPTY, through the drain a chunk's owner uses (at most one value). */
    private int drainOne() {
        int[] one = {MpscIntQueue.EMPTY};
        queue.drainTo(one, 0, 1);
        return one[0];
    }
}
