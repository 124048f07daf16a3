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
 * Protocol 7 (decay), the collect against a release: a thread magazine holds an empty large chunk, whose emptying
 * set the magazine's flag and asked its event loop for a collect, and a second large chunk with one live buffer.
 * The owner runs that collect ({@link ThreadMagazine#releaseLargeSparesIfEmptied}) while another thread releases the
 * buffer, emptying the second chunk. Either the collect sees the second chunk empty and detaches it (the first stays
 * as the spare), or the releaser finds the flag clear and asks for a collect of its own. Forbidden: the stranded
 * spare, an empty attached chunk with the flag clear and no collect asked for, which only the next tick would find.
 * With the owner's clearing store planted after its look at the chunks, the stranded spare appears.
 */
@JCStressTest
@Description("a release empties a large chunk while the owner's event loop runs the collect")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the collect saw the chunk empty and detached it")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "detached, and the releaser asked for another collect")
@Outcome(id = "2, 1, 1", expect = ACCEPTABLE, desc = "the collect looked first; the releaser asked for another")
@Outcome(id = "2, 0, 0", expect = FORBIDDEN, desc = "stranded spare: empty, attached, flag clear, no collect asked")
@Outcome(expect = FORBIDDEN, desc = "a collect lost, a chunk lost, or a flag set with no collect asked for")
@State
public class DecayVsLargeReleaseStress {
    /** Stands in for the event loop: counts the collects asked for. */
    static final class RecordingDecay extends MagazineDecay {
        int collectsAsked;

        @Override
        void onChunkTaken() {
        }

        @Override
        void onSlowPath() {
        }

        @Override
        void askLoopForOwnerWork() {
            collectsAsked++;
        }

        @Override
        boolean ticksOnSlowPaths() {
            return false;
        }
    }

    private final MemoryPool pool = StressFixtures.newPool();
    private final RecordingDecay decay = new RecordingDecay();
    private final ThreadMagazine magazine = new ThreadMagazine(pool.supply(), new Thread(), m -> decay);
    private final LargeChunk spare = StressFixtures.addLargeChunk(pool, magazine, 4);
    private final LargeChunk second = StressFixtures.addLargeChunk(pool, magazine, 4);
    private final MagByteBuf inSecond = StressFixtures.largeBufferHolding(pool, second, 2);

    public DecayVsLargeReleaseStress() {
        // The first chunk's emptying: the flag is set, and the collect it asked for is the owner's actor.
        magazine.onLargeChunkEmptied(spare);
        decay.collectsAsked = 0;
    }

    @Actor
    public void ownerCollects() {
        magazine.releaseLargeSparesIfEmptied();
    }

    @Actor
    public void release() {
        second.release(inSecond, Thread.currentThread().getId());
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = StressFixtures.largeChunkCount(magazine);
        r.r2 = magazine.lvLargeChunkEmptied() ? 1 : 0;
        r.r3 = decay.collectsAsked;
    }
}
