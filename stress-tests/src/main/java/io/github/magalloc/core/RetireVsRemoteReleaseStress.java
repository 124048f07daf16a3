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
 * Protocol 3 (chunk retirement): a non-current chunk of two segments, both held by buffers. The
 * owner releases one segment locally and then trims (drain + retire if entirely free); another thread releases
 * the other segment at the same time. Exactly one party may reclaim the chunk, only once no buffer holds a
 * segment, and no segment may be lost. The arbiter plays the owner's next trim.
 */
@JCStressTest
@Description("owner release + trim races a foreign release of the chunk's last live segment")
@Outcome(id = "1, 1, 2", expect = ACCEPTABLE, desc = "the foreign release was queued before the owner's drain: the owner's trim retired the chunk")
@Outcome(id = "0, 1, 2", expect = ACCEPTABLE, desc = "the foreign release came after the owner's drain: the next trim retired the chunk")
@Outcome(id = {"1, 2, 2", "0, 2, 2"}, expect = FORBIDDEN, desc = "the chunk was retired twice (its slab would be reused twice)")
@Outcome(id = "0, 0, 2", expect = FORBIDDEN, desc = "an entirely free chunk was never reclaimed")
@Outcome(expect = FORBIDDEN, desc = "a segment lost or counted twice")
@State
public class RetireVsRemoteReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, magazine, 2);
    private final int ownersSegment = chunk.allocateSegment();
    private final int foreignSegment = chunk.allocateSegment();

    public RetireVsRemoteReleaseStress() {
        StressFixtures.park(magazine, chunk);
    }

    @Actor
    public void owner(III_Result r) {
        magazine.releaseLocal(chunk, ownersSegment);
        magazine.retireFreeChunks();
        r.r1 = StressFixtures.retired(pool);
    }

    @Actor
    public void foreign() {
        chunk.releaseRemote(foreignSegment);
    }

    @Arbiter
    public void nextTrim(III_Result r) {
        magazine.retireFreeChunks();
        r.r2 = StressFixtures.retired(pool);
        r.r3 = StressFixtures.accountedFree(chunk);
    }
}
