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
 * Protocol 6a (shrinking): one thread shrinks a large buffer (pages 0-3, down to page 0) while another releases its
 * neighbour (pages 4-5) in the same chunk; both clear bits of the same bitmap word and lower the same count. Under
 * the chunk's lock neither update is lost: afterwards only the shrunk buffer's page is in use, by the count and by
 * the bitmap (7 single pages can be had). (Unlocked, a lost clear keeps freed pages in use for good, a lost count
 * update breaks {@code usedPageCount == pages of live buffers}.)
 */
@JCStressTest
@Description("large chunk: a shrink and a neighbour's release update the same bitmap word and count at once")
@Outcome(id = "1, 7, 8192", expect = ACCEPTABLE, desc = "nothing lost: one page in use, seven free")
@Outcome(expect = FORBIDDEN, desc = "a page or count update was lost")
@State
public class LargeChunkShrinkVsReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final LargeChunk chunk = StressFixtures.newLargeChunk(pool, 8);
    private final MagByteBuf shrunk = StressFixtures.largeBufferHolding(pool, chunk, 4);
    private final MagByteBuf neighbour = StressFixtures.largeBufferHolding(pool, chunk, 2);

    @Actor
    public void shrinker() {
        chunk.shrink(shrunk, LargeChunk.PAGE_SIZE);
    }

    @Actor
    public void releaser() {
        chunk.release(neighbour, Thread.currentThread().getId());
    }

    /** r1: pages in use by the count; r2: single pages that can still be had; r3: the shrunk buffer's reservation. */
    @Arbiter
    public void check(III_Result r) {
        r.r1 = StressFixtures.largePagesInUse(chunk);
        int free = 0;
        while (chunk.allocate(LargeChunk.PAGE_SIZE) >= 0) {
            free++;
        }
        r.r2 = free;
        r.r3 = shrunk.reservedBytes();
    }
}
