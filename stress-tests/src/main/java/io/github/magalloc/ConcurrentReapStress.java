package io.github.magalloc;

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
 * Hazard 4: two threads notice the same dead thread at once (trim() and a new thread's first allocation both reap
 * dead threads' magazines). The magazine must be handed over exactly once: its chunk, still holding a live
 * segment, ends up in exactly one shared magazine. A second hand-over would pick another stripe (the owner id is
 * gone by then) and list the chunk twice, or lose it.
 */
@JCStressTest
@Description("two reapers race to hand over the same dead thread's magazine")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "handed over once, whichever reaper won")
@Outcome(id = "2, 0", expect = FORBIDDEN, desc = "handed over twice: the chunk is listed by two shared magazines")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "the chunk was lost")
@Outcome(expect = FORBIDDEN, desc = "other, or the magazine still registered as live")
@State
public class ConcurrentReapStress {
    private final MemoryPool pool = StressFixtures.newPool();

    public ConcurrentReapStress() {
        Magazine dead = new Magazine(pool, new Thread()); // never started: not alive
        SizeClassChunk chunk = StressFixtures.newChunk(pool, dead, 2);
        StressFixtures.makeCurrent(dead, chunk);
        chunk.allocateSegment(); // a live buffer keeps the chunk from being retired
        StressFixtures.registerThreadMagazine(pool, dead);
    }

    @Actor
    public void trimmer() {
        pool.reapDeadThreadMagazines();
    }

    @Actor
    public void newThread() {
        pool.reapDeadThreadMagazines();
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = StressFixtures.sharedChunks(pool, StressFixtures.SIZE_CLASS);
        r.r2 = pool.liveThreadMagazineCount();
    }
}
