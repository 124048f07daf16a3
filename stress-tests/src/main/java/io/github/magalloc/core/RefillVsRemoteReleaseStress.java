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
 * The owner allocates from its exhausted current chunk (two segments, both live) while another thread releases
 * one of them. The refill drains the remote queue: it either gets the released segment back or, when the release
 * comes too late, parks the chunk among the others and takes a new chunk. A segment still held by a buffer must
 * never be handed out, and the chunk's counts must stay exact: free + queued + live == 2 (the counting invariant of
 * protocol 1 (release from any thread)).
 */
@JCStressTest
@Description("owner's allocation on an exhausted chunk (refill) races a foreign release to that chunk")
@Outcome(id = "1, 0, 2", expect = ACCEPTABLE, desc = "refill drained the foreign release: the freed segment is handed out again")
@Outcome(id = "0, -1, 2", expect = ACCEPTABLE, desc = "the release came after the drain: chunk parked, a new chunk serves")
@Outcome(id = "1, 1, 2", expect = FORBIDDEN, desc = "the segment still held by a live buffer was handed out")
@Outcome(expect = FORBIDDEN, desc = "a segment lost or counted twice, or the chunk in a wrong place")
@State
public class RefillVsRemoteReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, magazine, 2);
    private final int released;
    private final int stillHeld;
    private MagByteBuf got;

    public RefillVsRemoteReleaseStress() {
        StressFixtures.makeCurrent(magazine, chunk);
        released = chunk.allocateSegment();
        stillHeld = chunk.allocateSegment();
    }

    @Actor
    public void owner() {
        got = StressFixtures.allocate(pool, magazine);
    }

    @Actor
    public void foreign() {
        chunk.releaseRemote(released);
    }

    /** r1: served from the old chunk; r2: which of its segments (0 the released one, 1 the held one), else -1. */
    @Arbiter
    public void check(III_Result r) {
        boolean fromChunk = got.memory() == chunk;
        r.r1 = fromChunk ? 1 : 0;
        r.r2 = !fromChunk ? -1 : got.segment() == released ? 0 : got.segment() == stillHeld ? 1 : 2;
        int live = 1 + (fromChunk ? 1 : 0);
        boolean placed = fromChunk ? StressFixtures.isCurrent(chunk) : chunk.isParked();
        r.r3 = placed ? StressFixtures.accountedFree(chunk) + live : -1;
    }
}
