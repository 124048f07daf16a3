package io.github.magalloc.core;

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
 * Two producers race for the last two free places of a queue whose capacity (3) is not a power of two (its array
 * has 4 slots). Producer A offers 1 then 2, producer B offers 3: exactly two of the three offers fit. A capacity
 * enforced against the array length would let all three in; a lost claim would let only one in.
 */
@JCStressTest
@Description("MPSC int queue, capacity 3 holding 1 value: three offers from two producers, two places")
@Outcome(id = "3, 0", expect = ACCEPTABLE, desc = "A took both places; B found the queue full")
@Outcome(id = "5, 0", expect = ACCEPTABLE, desc = "A's first offer and B's got in (either order); A's second found it full")
@Outcome(id = "7, 0", expect = FORBIDDEN, desc = "all three fit: capacity enforced against the array length, not 3")
@Outcome(id = "6, 0", expect = FORBIDDEN, desc = "A's first offer failed but its second succeeded with no consumer")
@Outcome(expect = FORBIDDEN, desc = "fewer than two fit, or the drained contents differ from the accepted offers")
@State
public class MpscIntQueueFullStress {
    private final MpscIntQueue queue = new MpscIntQueue(3);
    private int accepted;
    private int acceptedB;

    public MpscIntQueueFullStress() {
        queue.offer(100);
    }

    @Actor
    public void producerA() {
        accepted = (queue.offer(1) ? 1 : 0) | (queue.offer(2) ? 2 : 0);
    }

    @Actor
    public void producerB() {
        acceptedB = queue.offer(3) ? 4 : 0;
    }

    /** r1: bit set of accepted offers (1: A's 1, 2: A's 2, 4: B's 3); r2: 0 if the contents match exactly. */
    @Arbiter
    public void check(II_Result r) {
        int mask = accepted | acceptedB;
        r.r1 = mask;
        int[] drained = new int[8];
        int n = queue.drainTo(drained, 0, drained.length);
        int seen = 0;
        boolean ok = n == 1 + Integer.bitCount(mask) && drained[0] == 100;
        int lastOfA = 0;
        for (int i = 1; ok && i < n; i++) {
            int v = drained[i];
            int bit = v == 3 ? 4 : v;
            ok = (bit == 1 || bit == 2 || bit == 4) && (seen & bit) == 0 && (mask & bit) != 0;
            seen |= bit;
            if (v == 1 || v == 2) {
                ok &= v > lastOfA; // one producer's values keep their order
                lastOfA = v;
            }
        }
        r.r2 = ok && queue.isEmpty() ? 0 : 1;
    }
}
