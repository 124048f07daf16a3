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
 * A segment's own buffer object moves away from its segment on a foreign thread while the owner refills: buffer A
 * (the owner's, the only object in its segment's slot) grows on another thread, which swaps A's memory with a
 * fresh object's (memory elsewhere) and releases the fresh object, so A's old segment comes back through the
 * remote queue while A stays live. The owner's allocation on the exhausted chunk drains that queue. If it gets the
 * old segment, it must see that the slot's object no longer holds it (the foreign thread's memory writes come
 * before its queue offer, the owner's reads after its drain) and make a new object: never hand out A, which is live
 * (segments' objects, protocol 5 (buffer objects)).
 */
@JCStressTest
@Description("a segment's own object grows away on a foreign thread while the owner refills its exhausted chunk")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "refill drained the old segment and gave it a new object")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "the release came after the drain: a new chunk serves")
@Outcome(id = "1, 1, 1", expect = FORBIDDEN, desc = "the live grown buffer's object handed out with its old segment")
@Outcome(expect = FORBIDDEN, desc = "the grown buffer lost its new memory, or another object handed out twice")
@State
public class GrownObjectVsRefillStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final SizeClassChunk chunk = StressFixtures.newChunk(pool, magazine, 2);
    private final SizeClassChunk elsewhere = StressFixtures.newChunk(pool, StressFixtures.ownedMagazine(pool), 1);
    private final MagByteBuf grown;
    private final MagByteBuf other;
    private final MagByteBuf fresh;
    private MagByteBuf got;

    public GrownObjectVsRefillStress() {
        StressFixtures.makeCurrent(magazine, chunk);
        grown = StressFixtures.allocate(pool, magazine); // the constructor plays the owner: segments' own objects
        other = StressFixtures.allocate(pool, magazine);
        fresh = StressFixtures.bufferHolding(pool, elsewhere, elsewhere.allocateSegment());
        fresh.setMemory(elsewhere, fresh.segment(), 0, StressFixtures.SEGMENT_SIZE);
    }

    @Actor
    public void owner() {
        got = StressFixtures.allocate(pool, magazine);
    }

    /** What {@link MemoryPool#reallocate} does on a thread that owns neither chunk: swap, then free the old memory. */
    @Actor
    public void foreignGrowth() {
        grown.swapMemory(fresh);
        long threadId = Thread.currentThread().getId();
        chunk.release(fresh, threadId);
        fresh.home().recycle(fresh, threadId);
    }

    /** r1: served from the old chunk; r2: handed out the grown (live) object or the other live one; r3: grown intact. */
    @Arbiter
    public void check(III_Result r) {
        r.r1 = got.memory() == chunk ? 1 : 0;
        r.r2 = got == grown || got == other ? 1 : 0;
        r.r3 = grown.memory() == elsewhere && grown.refCnt() == 1 ? 1 : 0;
    }
}
