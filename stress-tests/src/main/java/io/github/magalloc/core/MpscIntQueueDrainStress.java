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
 * A producer offers into a full queue (capacity 3, array of 4, first lap) while the consumer drains a batch of
 * two. Space appears only when the batch's single consumer-index store is seen; the producer's values then go
 * to slot 3 (past the capacity) and slot 0 (second lap). Nothing may be lost, duplicated, invented or reordered.
 */
@JCStressTest
@Description("MPSC int queue, capacity 3, full: producer offers 1 then 2 while the consumer drains a batch of 2")
@Outcome(id = "0, 2, 0", expect = ACCEPTABLE, desc = "both offers before the drain's index store: both refused")
@Outcome(id = "2, 2, 0", expect = ACCEPTABLE, desc = "offer of 1 refused, offer of 2 after the drain: accepted")
@Outcome(id = "3, 2, 0", expect = ACCEPTABLE, desc = "both offers after the drain: both accepted")
@Outcome(id = "1, 2, 0", expect = FORBIDDEN, desc = "1 accepted, then 2 refused although the drain freed two places")
@Outcome(expect = FORBIDDEN, desc = "a value lost, duplicated, invented or reordered, or a batch of other than 2")
@State
public class MpscIntQueueDrainStress {
    private final MpscIntQueue queue = new MpscIntQueue(3);
    private final int[] batch = new int[2];
    private int drained;
    private int accepted;

    public MpscIntQueueDrainStress() {
        queue.offer(10);
        queue.offer(11);
        queue.offer(12);
    }

    @Actor
    public void producer() {
        accepted = (queue.offer(1) ? 1 : 0) | (queue.offer(2) ? 2 : 0);
    }

    @Actor
    public void consumer() {
        drained = queue.drainTo(batch, 0, 2);
    }

    /** r1: accepted offers as bits (1: value 1, 2: value 2); r2: size of the racing batch; r3: 0 if exact. */
    @Arbiter
    public void check(III_Result r) {
        r.r1 = accepted;
        r.r2 = drained;
        int[] rest = new int[8];
        int n = queue.drainTo(rest, 0, rest.length);
        boolean ok = drained == 2 && batch[0] == 10 && batch[1] == 11 && n >= 1 && rest[0] == 12;
        if (accepted == 1) {
            ok &= n == 2 && rest[1] == 1;
        } else if (accepted == 2) {
            ok &= n == 2 && rest[1] == 2;
        } else if (accepted == 3) {
            ok &= n == 3 && rest[1] == 1 && rest[2] == 2;
        } else {
            ok &= n == 1;
        }
        r.r3 = ok && queue.isEmpty() ? 0 : 1;
    }
}
