package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The magazine lets go of a large chunk (it is spare, trimmed, or its thread ended) while another thread releases
 * the chunk's last live buffer. The slab goes back when the chunk is both detached and unused, by whichever of the
 * two makes that true under the chunk's lock: exactly once, and never while a buffer still uses it.
 */
@JCStressTest
@Description("large chunk: the magazine detaches it while another thread releases its last buffer")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "whichever came last gave the slab back, once (either order)")
@Outcome(id = "2", expect = FORBIDDEN, desc = "both gave the slab back: freed twice")
@Outcome(id = "0", expect = FORBIDDEN, desc = "nobody gave the slab back: leaked")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class LargeChunkDetachVsLastReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final LargeChunk chunk = StressFixtures.newLargeChunk(pool, 4);
    private final MagByteBuf buffer = StressFixtures.largeBufferHolding(pool, chunk, 1);

    @Actor
    public void magazineDetaches() {
        StressFixtures.detach(chunk);
    }

    @Actor
    public void bufferReleased() {
        chunk.release(buffer, Thread.currentThread().getId());
    }

    @Arbiter
    public void count(I_Result r) {
        r.r1 = StressFixtures.retired(pool);
    }
}
