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
 * Two threads notice the same dead thread at once ({@code trim()} and a new thread's first allocation both reap dead
 * threads' magazines, {@link ThreadMagazines#reapDeadThreadMagazines}). The magazine must be ended exactly once
 * (protocol 4 (ended threads): only the caller that removes it from the live set ends it; a second end would close
 * its thread's object cache twice and count it twice), and its chunk, still holding a live segment, must stay listed
 * once in the ended magazine until that segment comes back.
 */
@JCStressTest
@Description("two reapers race to end the same dead thread's magazine")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "ended once, whichever reaper won; the chunk still listed")
@Outcome(id = "2, .*, .*", expect = FORBIDDEN, desc = "ended twice")
@Outcome(id = ".*, 0, .*", expect = FORBIDDEN, desc = "the chunk with a live segment was lost (or retired)")
@Outcome(expect = FORBIDDEN, desc = "other, or the magazine still registered as live")
@State
public class ConcurrentReapStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine dead = StressFixtures.ownedMagazine(pool); // its thread never started: not alive

    public ConcurrentReapStress() {
        SizeClassChunk chunk = StressFixtures.newChunk(pool, dead, 2);
        StressFixtures.makeCurrent(dead, chunk);
        chunk.allocateSegment(); // a live buffer keeps the chunk from being retired
        StressFixtures.registerThreadMagazine(pool, dead);
    }

    @Actor
    public void trimmer() {
        pool.threads().reapDeadThreadMagazines();
    }

    @Actor
    public void newThread() {
        pool.threads().reapDeadThreadMagazines();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = (int) pool.metrics().magazinesEnded();
        r.r2 = dead.chunkCount(StressFixtures.SIZE_CLASS); // the arbiter runs after both actors
        r.r3 = pool.threadMagazineCount();
    }
}
