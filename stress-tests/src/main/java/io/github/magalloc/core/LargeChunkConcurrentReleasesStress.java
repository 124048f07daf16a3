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
 * A release on another thread and the owner's allocation update the same word of a large chunk's page bitmap at
 * once (the released buffer holds pages 0-1, a live one pages 2-3, pages 4-7 are free). Both are read-modify-writes
 * of that word; under the chunk's lock neither is lost, so afterwards exactly the live buffer's and the owner's
 * pages are in use. (Unlocked, a lost clear leaves released pages in use forever, a leak; a lost set hands the
 * owner's page out twice.)
 */
@JCStressTest
@Description("large chunk: a release and the owner's allocation update the same bitmap word at once")
@Outcome(id = "0, 3, 5", expect = ACCEPTABLE, desc = "the owner got page 0, released first: nothing lost")
@Outcome(id = "32768, 3, 5", expect = ACCEPTABLE, desc = "the owner got page 4 (pages 0-1 not back yet): nothing lost")
@Outcome(expect = FORBIDDEN, desc = "a page update was lost, or a page was handed out twice")
@State
public class LargeChunkConcurrentReleasesStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final LargeChunk chunk = StressFixtures.newLargeChunk(pool, 8);
    private final MagByteBuf released = StressFixtures.largeBufferHolding(pool, chunk, 2);
    private final MagByteBuf live = StressFixtures.largeBufferHolding(pool, chunk, 2);
    private int ownerOffset;

    @Actor
    public void releaser() {
        chunk.release(released, Thread.currentThread().getId());
    }

    @Actor
    public void owner() {
        ownerOffset = chunk.allocate(LargeChunk.PAGE_SIZE);
    }

    /** r1: the owner's offset; r2: pages in use by the count; r3: single pages that can still be had. */
    @Arbiter
    public void check(III_Result r) {
        r.r1 = ownerOffset;
        r.r2 = StressFixtures.largePagesInUse(chunk);
        int free = 0;
        while (chunk.allocate(LargeChunk.PAGE_SIZE) >= 0) {
            free++;
        }
        r.r3 = free;
    }
}
