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
 * A stripe's virtual threads' objects (protocol 5a (virtual threads' objects)): one thread takes an object and
 * releases it, another takes one; while the first one runs, its object must not be handed to the second whatever the
 * interleaving (its stale reference could still be used). One object waits at the start,
 * held last by a thread that has ended, so whichever thread takes first gets it. The home does not care what kind
 * of thread its holders are: the actors are jcstress's platform threads, which jcstress may end before the other
 * actor reaches the same state; a holder that has ended may rightly give its object away ({@code 1, 1, 2}). With
 * the take planted to ignore a running holder, the second thread is handed the first one's object while the first
 * still runs ({@code 1, 1, 1}).
 */
@JCStressTest
@Description("a holder releases its object while another thread takes one from the same stripe's home")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the holder took the waiting object, released it; the other got a new one")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the other took the waiting object first; the holder got a new one")
@Outcome(id = "1, 1, 2", expect = ACCEPTABLE, desc = "the holder's thread had ended (jcstress ends actor threads) and gave its object away")
@Outcome(id = ".*, .*, 1", expect = FORBIDDEN, desc = "the other was handed the object of a holder that still runs")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class VirtualThreadObjectsAffinityStress {
    private final PaddedSpinLock lock = new PaddedSpinLock();
    /** Sweeps are not the subject here: none is scheduled. */
    private final VirtualThreadObjects home = new VirtualThreadObjects(StressFixtures.newPool().supply().context, lock, task -> { });
    private final MagByteBuf waiting;
    private MagByteBuf holders;
    private MagByteBuf others;
    /** The holder's thread, written before its release, read after the other's take. */
    private volatile Thread holderThread;
    private boolean holderAliveAfterOthersTake;

    public VirtualThreadObjectsAffinityStress() {
        waiting = take();
        waiting.setHolder(new Thread()); // a thread that is not alive: as good as ended
        home.recycle(waiting, -1);
    }

    private MagByteBuf take() {
        return StressFixtures.take(home, lock);
    }

    @Actor
    public void holderTakesAndReleases(III_Result r) {
        MagByteBuf buf = take();
        holders = buf;
        holderThread = Thread.currentThread(); // before the release: a take that finds the object finds this too
        home.recycle(buf, Thread.currentThread().getId());
        r.r1 = buf == waiting ? 1 : 0;
    }

    @Actor
    public void otherTakes(III_Result r) {
        MagByteBuf buf = take();
        others = buf;
        // Alive now means alive at the take: jcstress's actor threads may end before another actor reaches this
        // state, and a holder that had ended may rightly give its object away.
        Thread holder = holderThread;
        holderAliveAfterOthersTake = holder != null && holder.isAlive();
        r.r2 = buf == waiting ? 1 : 0;
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = holders != others ? 0 : holderAliveAfterOthersTake ? 1 : 2;
    }
}
