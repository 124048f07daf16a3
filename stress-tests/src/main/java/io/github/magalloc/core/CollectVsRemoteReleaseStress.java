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
 * A refill finds no partial chunk and drains the full list ({@code Magazine.collectForeignReleases}) while another
 * thread releases the last live segment of the only full chunk. The collect visits each full chunk once; if it
 * sees the release, the chunk is entirely free and becomes current (not retired); if not, a new chunk serves and
 * the release waits in the queue. A refill retires only a second entirely free chunk, never the one it returns
 * (design.md, "Refill and the places of a chunk"); the counting invariant of protocol 1 (release from any thread)
 * must hold throughout.
 */
@JCStressTest
@Description("refill's collect of foreign releases races a foreign release that empties the only full chunk")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "collect drained the release: the emptied chunk serves, nothing retired")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "the release came after the collect: a new chunk serves, the release stays queued")
@Outcome(id = {"1, 1, 1", "1, 1, 0"}, expect = FORBIDDEN, desc = "the chunk serving the allocation was retired")
@Outcome(id = "-1, .*", expect = FORBIDDEN, desc = "the refill threw")
@Outcome(expect = FORBIDDEN, desc = "a segment lost or counted twice")
@State
public class CollectVsRemoteReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final SizeClassChunk exhausted = StressFixtures.newChunk(pool, magazine, 1);
    private final SizeClassChunk full = StressFixtures.newChunk(pool, magazine, 1);
    private final int fullSegment;
    private MagByteBuf got;

    public CollectVsRemoteReleaseStress() {
        StressFixtures.makeCurrent(magazine, exhausted);
        exhausted.allocateSegment();
        fullSegment = full.allocateSegment();
        StressFixtures.park(magazine, full);
    }

    @Actor
    public void owner(III_Result r) {
        try {
            got = StressFixtures.allocate(pool, magazine);
            r.r1 = got.memory() == full ? 1 : got.memory() == exhausted ? 2 : 0;
        } catch (RuntimeException | AssertionError e) {
            r.r1 = -1;
        }
    }

    @Actor
    public void foreign() {
        full.releaseRemote(fullSegment);
    }

    /** r2: chunks retired; r3: the full chunk's free + queued + live segments (must be its one segment). */
    @Arbiter
    public void check(III_Result r) {
        r.r2 = StressFixtures.retired(pool);
        int live = got != null && got.memory() == full ? 1 : 0;
        r.r3 = StressFixtures.accountedFree(full) + live;
    }
}
