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
 * Protocol 1a (foreign release marks): a refill finds no partial chunk and, its class marked by an earlier foreign
 * release, looks through the full chunks, while another thread releases a segment of the only full chunk (two
 * segments, both live). Either the look collects the release, or the class is marked again when both are done, so
 * that the next refill looks: a release left in a full chunk's queue with the mark clear would wait for the next decay
 * tick, and a thread with no tick, never.
 */
@JCStressTest
@Description("refill's look at the full chunks, begun by clearing the class's mark, races a foreign release into one")
@Outcome(id = {"1, 0, 2", "1, 1, 2"}, expect = ACCEPTABLE, desc = "the look collected the release (the mark may be set again)")
@Outcome(id = "0, 1, 2", expect = ACCEPTABLE, desc = "the release came after the look: the class is marked for the next one")
@Outcome(id = "0, 0, 2", expect = FORBIDDEN, desc = "the release waits in a full chunk and the class is not marked")
@Outcome(expect = FORBIDDEN, desc = "a segment lost or counted twice")
@State
public class ForeignReleaseMarkStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final SizeClassChunk exhausted = StressFixtures.newChunk(pool, magazine, 1);
    private final SizeClassChunk full = StressFixtures.newChunk(pool, magazine, 2);
    private final int released;
    private MagByteBuf got;

    public ForeignReleaseMarkStress() {
        StressFixtures.makeCurrent(magazine, exhausted);
        exhausted.allocateSegment();
        released = full.allocateSegment();
        full.allocateSegment(); // still held: the release does not empty the chunk
        StressFixtures.park(magazine, full);
        magazine.markForeignRelease(StressFixtures.SIZE_CLASS); // an earlier foreign release, already collected
    }

    @Actor
    public void owner() {
        got = StressFixtures.allocate(pool, magazine);
    }

    @Actor
    public void foreign() {
        full.releaseRemote(released);
    }

    /** r1: served from the full chunk; r2: the class marked; r3: the full chunk's free + queued + live segments. */
    @Arbiter
    public void check(III_Result r) {
        boolean collected = got.memory() == full;
        r.r1 = collected ? 1 : 0;
        r.r2 = magazine.lvForeignReleaseMarked(StressFixtures.SIZE_CLASS) ? 1 : 0;
        r.r3 = StressFixtures.accountedFree(full) + 1 + (collected ? 1 : 0);
    }
}
