package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
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
 * A thread died holding its magazine, whose current chunk has one segment free and one held by a buffer. The reaper
 * ends the magazine ({@link ThreadMagazine#end}: an {@link EndedMagazine} takes it over, protocol 4 (ended
 * threads)) while another thread releases that last buffer through the public path ({@link SizeClassChunk#release}),
 * which reads the owner id racily: it sees the dead thread's id (the chunk's remote queue) or
 * {@link Magazine#NO_OWNER_THREAD} (the hand-over's lock, {@link EndedMagazine#release}). Whichever it sees, the
 * chunk must be retired exactly once by the two of them, with no later trim or refill: nobody else will ever look at
 * an ended magazine. The releaser looks at the owner id again after queueing and, if the magazine ended meanwhile,
 * sweeps the queues under the lock itself ({@link ThreadMagazine#releaseFromOtherThread},
 * {@link EndedMagazine#sweepRemoteReleases}); without that second look, a release that read the old id and queued
 * after the end's drain is stranded: outcome {@code 0, 0, 2, 1}.
 */
@JCStressTest
@Description("release of a dead thread's last buffer races the end of its magazine")
@Outcome(id = "1, 1, 2, 1", expect = ACCEPTABLE, desc = "the release was queued before the end's drain, which retired the chunk")
@Outcome(id = "0, 1, 2, 1", expect = ACCEPTABLE, desc = "the release came later: under the lock, or by its own sweep")
@Outcome(id = {"1, 2, 2, 1", "0, 2, 2, 1"}, expect = FORBIDDEN, desc = "the chunk was retired twice")
@Outcome(id = "0, 0, 2, 1", expect = FORBIDDEN, desc = "the released segment was stranded: the dead thread's empty chunk is never reclaimed")
@Outcome(expect = FORBIDDEN, desc = "a segment lost, a release left unfinished, or the magazine not ended")
@State
public class EndVsRemoteReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    /** Owned by a thread that was never started: not alive, as the reaper sees a dead owner. */
    private final ThreadMagazine dead = StressFixtures.ownedMagazine(pool);
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, dead, 2);
    private final MagByteBuf lastBuffer;

    public EndVsRemoteReleaseStress() {
        StressFixtures.makeCurrent(dead, chunk);
        int held = chunk.allocateSegment();
        int freed = chunk.allocateSegment();
        dead.releaseLocal(chunk, freed); // the owner released one buffer itself before it died
        lastBuffer = StressFixtures.bufferHolding(pool, chunk, held);
    }

    @Actor
    public void reaper(IIII_Result r) {
        dead.end();
        r.r1 = StressFixtures.retired(pool);
    }

    @Actor
    public void releaser() {
        long threadId = Thread.currentThread().getId();
        chunk.release(lastBuffer, threadId);
        lastBuffer.home().recycle(lastBuffer, threadId);
    }

    /** Only looks: a dead magazine gets no later trim in real life either. */
    @Arbiter
    public void check(IIII_Result r) {
        r.r2 = StressFixtures.retired(pool);
        r.r3 = StressFixtures.accountedFree(chunk);
        r.r4 = dead.lvOwnerThreadId() == Magazine.NO_OWNER_THREAD && StressFixtures.endedLockIsFree(dead) ? 1 : 0;
    }
}
