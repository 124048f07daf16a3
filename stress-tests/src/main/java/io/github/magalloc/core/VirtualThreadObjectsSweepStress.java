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
 * The sweep of a stripe's virtual threads' objects (protocol 5a (virtual threads' objects)) against a release: an
 * object whose holder has ended is released on another thread while the armed sweep runs. Whatever the
 * interleaving, the object must not end up waiting with its ended holder and no sweep armed (then nothing would
 * ever let go of that thread): the sweep disarms before its pass, the release reads the flag after its push.
 * Outcomes: waiting, holder still named, sweep armed. With the release planted to read the flag before its push,
 * {@code 1, 1, 0} appears.
 */
@JCStressTest
@Description("a release of an ended holder's object against the sweep")
@Outcome(id = "1, 0, [01]", expect = ACCEPTABLE, desc = "pushed before the pass, which forgot the holder (armed: the release also saw the sweep disarmed)")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "pushed after the pass; the release armed the next sweep")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the sweep held the lock: the releaser, not the holder, dropped the object")
@Outcome(id = "1, 1, 0", expect = FORBIDDEN, desc = "stranded: an ended holder kept with no sweep armed")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class VirtualThreadObjectsSweepStress {
    private final PaddedSpinLock lock = new PaddedSpinLock();
    /** Sweeps run only when an actor calls them: none is scheduled behind the test's back. */
    private final VirtualThreadObjects home = new VirtualThreadObjects(StressFixtures.newPool().supply().context, lock, task -> { });
    private final MagByteBuf buf;

    public VirtualThreadObjectsSweepStress() {
        buf = take();
        buf.setHolder(new Thread()); // a thread that is not alive: as good as ended
        // An earlier release armed the sweep that is about to run; its object was taken again.
        MagByteBuf earlier = take();
        earlier.setHolder(new Thread());
        home.recycle(earlier, -1);
        take();
    }

    private MagByteBuf take() {
        return StressFixtures.take(home, lock);
    }

    @Actor
    public void release() {
        home.recycle(buf, Thread.currentThread().getId());
    }

    @Actor
    public void sweep() {
        home.sweep();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = home.waitingCount() > 0 ? 1 : 0;
        r.r2 = buf.holder() != null ? 1 : 0;
        r.r3 = home.lvSweepArmed() ? 1 : 0;
    }
}
