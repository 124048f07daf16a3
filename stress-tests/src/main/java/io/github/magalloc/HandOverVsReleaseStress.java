package io.github.magalloc;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Hazard 4: the owner thread died holding its magazine, whose current chunk has one segment free and one held by a
 * buffer. The reaper hands the magazine over to a shared one while another thread releases that last buffer
 * through the public release path ({@link Chunk#release}, which reads the chunk's magazine racily). The chunk must
 * accept the release whichever magazine it sees, be reclaimed exactly once, and lose no segment; the arbiter plays
 * the shared magazine's next trim.
 */
@JCStressTest
@Description("release of a dead thread's last buffer races the hand-over of its magazine")
@Outcome(id = "1, 1, 2, 1", expect = ACCEPTABLE, desc = "release queued before the hand-over drained: the hand-over retired the empty chunk")
@Outcome(id = "0, 1, 2, 1", expect = ACCEPTABLE, desc = "release after the hand-over's drain: the heir adopted the chunk and its next trim retired it")
@Outcome(id = {"1, 2, 2, 1", "0, 2, 2, 1"}, expect = FORBIDDEN, desc = "the chunk was retired twice")
@Outcome(id = "0, 0, 2, 1", expect = FORBIDDEN, desc = "the dead thread's empty chunk was never reclaimed")
@Outcome(expect = FORBIDDEN, desc = "a segment lost, or the chunk left pointing at the dead thread's magazine")
@State
public class HandOverVsReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    /** Never started: a thread that is not alive, as the reaper sees a dead owner. */
    private final Magazine dead = new Magazine(pool, new Thread());
    private final Magazine heir = new Magazine(pool, null);
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, dead, 2);
    private final MagByteBuf lastBuffer;

    public HandOverVsReleaseStress() {
        StressFixtures.makeCurrent(dead, chunk);
        int held = chunk.allocateSegment();
        int freed = chunk.allocateSegment();
        dead.releaseLocal(chunk, freed); // the owner released one buffer itself before it died
        lastBuffer = StressFixtures.bufferHolding(pool, chunk, held);
    }

    @Actor
    public void reaper(IIII_Result r) {
        dead.handOverTo(heir);
        r.r1 = StressFixtures.retired(pool);
    }

    @Actor
    public void releaser() {
        chunk.release(lastBuffer, Thread.currentThread().getId());
    }

    @Arbiter
    public void heirsNextTrim(IIII_Result r) {
        heir.trimOwned();
        r.r2 = StressFixtures.retired(pool);
        r.r3 = StressFixtures.accountedFree(chunk);
        r.r4 = chunk.magazine == heir && dead.ownerThreadId == Magazine.NO_OWNER ? 1 : 0;
    }
}
