package io.github.magalloc;

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
 * A large chunk has two references: its magazine's and one live buffer's. The magazine drops its reference
 * (replacement by a new large chunk, or hand-over after thread death) while the buffer is released on another
 * thread. Whoever drops the last reference gives the slab back: exactly once, and never while referenced.
 */
@JCStressTest
@Description("large chunk: magazine drops its reference while another thread releases the last buffer")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "whichever dropped last returned the slab, once (either order)")
@Outcome(id = "2", expect = FORBIDDEN, desc = "both returned the slab: freed twice")
@Outcome(id = "0", expect = FORBIDDEN, desc = "nobody returned the slab: leaked")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class LargeChunkLastReferenceStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final LargeChunk chunk = new LargeChunk(Slab.heap(4096), pool);
    private final MagByteBuf buffer;

    public LargeChunkLastReferenceStress() {
        chunk.allocate(1024);
        buffer = StressFixtures.bufferHolding(pool, chunk, -1);
    }

    @Actor
    public void magazineDrops() {
        chunk.releaseReference();
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
