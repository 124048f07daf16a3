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
 * KNOWN BUG (docs/reliability.md, "Open bugs"; excluded from CI by the "KnownBug" in its name until fixed).
 *
 * <p>A refill scans the magazine's other chunks ({@link ChunkList#takeChunkWithFreeSegments}) while another thread
 * releases a segment of the only chunk in the list. The scan visits up to 8 chunks from a rotating cursor, so with
 * fewer than 8 chunks it visits the same chunk again. Interleaving: visit 1 drains nothing, the chunk becomes
 * {@code best} with 0 free; the foreign release lands; visit 2 drains it, finds the chunk entirely free and, as
 * {@code best != null}, retires it (slab back to the pool) and removes it from the list; the scan then returns
 * {@code best}, the retired chunk, and {@code remove(best)} fails with ArrayIndexOutOfBoundsException after
 * decrementing the list's size to -1. A one-segment chunk makes the window the whole scan; real chunks (16+
 * segments) need all remaining segments to arrive during one scan, e.g. behind a producer stalled between its
 * claim and its publish.
 */
@JCStressTest
@Description("refill's scan of other chunks races a foreign release that empties the only listed chunk")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the scan drained the release and took the chunk, not retired")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the release came after the scan: nothing free, chunk stays listed")
@Outcome(id = "-1, 1", expect = FORBIDDEN, desc = "BUG: the scan revisited its pick, retired it, then threw removing it again")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "the scan returned a chunk it had retired")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class ChunkScanVsRemoteReleaseKnownBugStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final Magazine magazine = new Magazine(pool, null);
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, magazine, 1);
    private final int segment = chunk.allocateSegment();
    private final ChunkList list = StressFixtures.addToOthers(magazine, chunk);

    @Actor
    public void ownersRefill(II_Result r) {
        try {
            SizeClassChunk taken = list.takeChunkWithFreeSegments(magazine);
            r.r1 = taken == chunk ? 1 : taken == null ? 0 : 2;
        } catch (RuntimeException | AssertionError e) {
            r.r1 = -1;
        }
    }

    @Actor
    public void foreignRelease() {
        chunk.releaseRemote(segment);
    }

    @Arbiter
    public void retired(II_Result r) {
        r.r2 = StressFixtures.retired(pool);
    }
}
