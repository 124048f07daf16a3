package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A large chunk's pages are handed out again only after the buffer that held them was released, and the new
 * holder sees everything the old one wrote. The chunk's only buffer holds both of its pages, writes a last byte and
 * is released on another thread while the owner asks the chunk for one page.
 */
@JCStressTest
@Description("large chunk: owner's allocation on a full chunk races the release of its only buffer")
@Outcome(id = "-1, -1", expect = ACCEPTABLE, desc = "the buffer was still live: no page for the owner")
@Outcome(id = "0, 42", expect = ACCEPTABLE, desc = "pages reused after the release, which is fully visible")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "pages reused without seeing the releasing thread's last write")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class LargeChunkReuseVsReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final LargeChunk chunk = StressFixtures.newLargeChunk(pool, 2);
    private final MagByteBuf buffer = StressFixtures.largeBufferHolding(pool, chunk, 2);

    @Actor
    public void owner(II_Result r) {
        int offset = chunk.allocate(LargeChunk.PAGE_SIZE);
        r.r1 = offset;
        r.r2 = offset < 0 ? -1 : StressFixtures.largeBufferAt(pool, chunk, offset).getByte(0);
    }

    @Actor
    public void releaser() {
        buffer.setByte(0, 42);
        chunk.release(buffer, Thread.currentThread().getId());
    }
}
