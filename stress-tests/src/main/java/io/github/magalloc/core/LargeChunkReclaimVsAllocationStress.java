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
 * Protocol 9 (making room), the hand-over: a thread making room on a shortage takes an unused large chunk of a
 * magazine ({@link LargeChunk#reclaimIfUnused}) while the magazine's owner allocates a run from it. Under the chunk's
 * lock exactly one of them acts: the owner gets its run and the chunk stays, or the chunk is taken, its slab given back
 * once, and the owner's allocation refused. Forbidden: a run handed out of a chunk whose slab went back (a live buffer
 * in freed memory), a slab given back without being taken, or neither acting. Planted "the taker reads the count
 * before it locks": the owner's run and the taking both happen, and the slab goes back under a live buffer.
 */
@JCStressTest
@Description("a shortage takes an unused large chunk while its owner allocates from it")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the owner allocated first; the chunk stays")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the chunk was taken first; the owner's allocation refused")
@Outcome(id = "1, 1, 1", expect = FORBIDDEN, desc = "a run handed out of a chunk whose slab went back")
@Outcome(expect = FORBIDDEN, desc = "a slab given back wrongly, or nobody acted")
@State
public class LargeChunkReclaimVsAllocationStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final LargeChunk chunk = StressFixtures.addLargeChunk(pool, magazine, 4);
    private int allocated;
    private int reclaimed;

    @Actor
    public void ownerAllocates() {
        allocated = chunk.allocate(2 * LargeChunk.PAGE_SIZE) >= 0 ? 1 : 0;
    }

    @Actor
    public void shortageTakes() {
        reclaimed = chunk.reclaimIfUnused() ? 1 : 0;
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = allocated;
        r.r2 = reclaimed;
        r.r3 = StressFixtures.retired(pool);
    }
}
