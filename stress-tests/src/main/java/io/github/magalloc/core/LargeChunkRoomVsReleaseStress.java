package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
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
 * A magazine's large chunk of 4 pages, a buffer holding 2 of them. The owner allocates 2 pages while another thread
 * releases that buffer: the allocation fills the chunk and clears its room bit if it comes first, and the release then
 * frees pages of a full chunk and sets the bit; in the other order neither changes it. Either way 2 pages stay free,
 * so the bit must end set ({@link RoomWord}: set exactly while the chunk has a free page), or the magazine's first
 * fit would never look at the chunk again. Planted "the owner clears the bit after its unlock": the release's set
 * can come before that clear, and the arbiter sees a chunk with room and no bit.
 */
@JCStressTest
@Description("the owner's allocation fills a large chunk while a release frees pages of it: the room bit")
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "two pages free, the room bit set")
@Outcome(id = "0, 2", expect = FORBIDDEN, desc = "two pages free but no room bit: the first fit skips the chunk")
@Outcome(expect = FORBIDDEN, desc = "the pages wrong")
@State
public class LargeChunkRoomVsReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final LargeChunk chunk = StressFixtures.addLargeChunk(pool, magazine, 4);
    private final MagByteBuf held = StressFixtures.largeBufferHolding(pool, chunk, 2);

    @Actor
    public void ownerAllocates() {
        if (chunk.allocate(2 * LargeChunk.PAGE_SIZE) < 0) {
            throw new IllegalStateException("the chunk always has two free pages");
        }
    }

    @Actor
    public void release() {
        chunk.release(held, Thread.currentThread().getId());
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = chunk.hasRoomBit() ? 1 : 0;
        r.r2 = StressFixtures.largePagesInUse(chunk);
    }
}
