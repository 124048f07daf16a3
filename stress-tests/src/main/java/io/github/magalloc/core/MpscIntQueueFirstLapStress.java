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
 * A consumer polls the first slot past the requested capacity (capacity 3, array of 4) on the queue's first lap
 * while a producer publishes into it. Netty's #16023 left such slots at 0 instead of EMPTY, so a poll invented
 * the value 0 there.
 */
@JCStressTest
@Description("MPSC int queue, capacity 3: poll of slot 3 on the first lap races the offer that fills it")
@Outcome(id = "1, 7, -1", expect = ACCEPTABLE, desc = "offer published first; poll takes 7")
@Outcome(id = "1, -1, 7", expect = ACCEPTABLE, desc = "poll ran before the publish (or between claim and publish); 7 stays queued")
@Outcome(id = {"1, 0, -1", "1, 0, 7"}, expect = FORBIDDEN, desc = "poll invented 0 from an uninitialised slot (#16023)")
@Outcome(expect = FORBIDDEN, desc = "a value lost, duplicated or invented, or the offer refused below capacity")
@State
public class MpscIntQueueFirstLapStress {
    private final MpscIntQueue queue = new MpscIntQueue(3);

    public MpscIntQueueFirstLapStress() {
        // Move both indices to 3: slots 0-2 used and emptied; slot 3 (past the capacity) never written.
        for (int i = 0; i < 3; i++) {
            queue.offer(100 + i);
        }
        for (int i = 0; i < 3; i++) {
            queue.poll();
        }
    }

    @Actor
    public void producer(III_Result r) {
        r.r1 = queue.offer(7) ? 1 : 0;
    }

    @Actor
    public void consumer(III_Result r) {
        r.r2 = queue.poll();
    }

    @Arbiter
    public void rest(III_Result r) {
        r.r3 = queue.poll();
        if (queue.poll() != MpscIntQueue.EMPTY || !queue.isEmpty()) {
            r.r3 = 1000; // something beyond what was offered
        }
    }
}
