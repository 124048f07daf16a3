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
 * Protocol 9 (making room), the hand-over against a release: a large chunk's last live buffer is released while a
 * thread making room tries to take the chunk; then the owner lets go of it at its next look, as it does with a chunk
 * found unused or taken ({@link LargeChunks}). The chunk goes back exactly once in every order: by the taking (it came
 * after the release), or by the owner's detach (the taking found a page in use). The pool's count of large chunks,
 * which each going back lowers, must end at 0. Forbidden: the chunk given back twice (the owner's detach of a chunk
 * already taken: its slab would reach the reuse pool twice, and be handed out twice), or never. Planted "detach does
 * not look whether the chunk is detached already": the taking and the detach both give it back.
 */
@JCStressTest
@Description("a shortage takes a large chunk while its last buffer is released; then the owner lets go of it")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the taking saw the page in use; the owner's detach gave it back")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the taking came after the release and gave it back")
@Outcome(id = "1, -1", expect = FORBIDDEN, desc = "given back twice: by the taking and by the owner's detach")
@Outcome(expect = FORBIDDEN, desc = "a chunk never given back, or given back wrongly")
@State
public class LargeChunkReclaimVsReleaseStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final LargeChunk chunk = StressFixtures.addLargeChunk(pool, magazine, 4);
    private final MagByteBuf held = StressFixtures.largeBufferHolding(pool, chunk, 1);
    private int reclaimed;

    @Actor
    public void lastBufferReleased() {
        chunk.freeRun(held.offset(), held.reservedBytes());
    }

    @Actor
    public void shortageTakes() {
        reclaimed = chunk.reclaimIfUnused() ? 1 : 0;
    }

    @Arbiter
    public void check(II_Result r) {
        StressFixtures.detach(chunk); // the owner's next look lets go of the chunk, taken or found unused
        r.r1 = reclaimed;
        r.r2 = (int) pool.metrics().largeChunks();
    }
}
