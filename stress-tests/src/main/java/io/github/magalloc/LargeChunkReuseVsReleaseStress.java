package io.github.magalloc;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A full large chunk restarts at offset 0 only when no buffer references it. Its only buffer writes a last byte
 * and is released on another thread while the owner asks the chunk for room. If the owner reuses the memory it
 * must see the releaser's last write (the release happens-before the reuse); reusing memory still referenced
 * would hand the same bytes to two buffers.
 */
@JCStressTest
@Description("large chunk: owner's bump allocation on a full chunk races the release of its only buffer")
@Outcome(id = "-1, -1", expect = ACCEPTABLE, desc = "the buffer was still referenced: no reuse")
@Outcome(id = "0, 42", expect = ACCEPTABLE, desc = "reuse after the release, which is fully visible")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "reuse without seeing the releasing thread's last write")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class LargeChunkReuseVsReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final LargeChunk chunk = new LargeChunk(Slab.heap(128), pool);
    private final MagByteBuf buffer;

    public LargeChunkReuseVsReleaseStress() {
        chunk.allocate(128);
        buffer = StressFixtures.bufferHolding(pool, chunk, -1);
    }

    @Actor
    public void owner(II_Result r) {
        int offset = chunk.allocate(64);
        r.r1 = offset;
        r.r2 = offset < 0 ? -1 : chunk.slab.array[offset];
    }

    @Actor
    public void releaser() {
        chunk.slab.array[0] = 42;
        chunk.release(buffer, Thread.currentThread().getId());
    }
}
