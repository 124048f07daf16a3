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
 * A stripe holds two large chunks with one live buffer each; two threads release those buffers at once, so each
 * release empties a chunk and then gives the stripe's spare chunks back under its lock
 * ({@link Stripe#onLargeChunkEmptied}, protocol 6 (large chunks)). Whatever the order, the stripe must end with
 * exactly one spare chunk, the other chunk's slab given back exactly once, and the lock free. With the give-back
 * planted to run without the lock, the two passes share the stripe's list and its scratch list: every quick-mode
 * configuration fails, the passes throwing {@code IndexOutOfBoundsException} and {@code NullPointerException} from
 * those lists.
 */
@JCStressTest
@Description("two releases empty two large chunks of a stripe at once; each gives spares back under the lock")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "one chunk kept as the spare, the other's slab given back once")
@Outcome(id = "0, 2, 1", expect = FORBIDDEN, desc = "both kept: the second pass missed the first chunk")
@Outcome(id = {"2, 0, 1", "1, 0, 1"}, expect = FORBIDDEN, desc = "no spare kept (a slab given back twice if 2)")
@Outcome(expect = FORBIDDEN, desc = "a pass failed, a chunk lost from the list, or the lock left taken")
@State
public class StripeLargeChunksEmptiedStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final Stripe stripe = new Stripe(pool.supply());
    private final LargeChunk first = StressFixtures.addLargeChunk(pool, stripe, 4);
    private final LargeChunk second = StressFixtures.addLargeChunk(pool, stripe, 4);
    private final MagByteBuf inFirst = StressFixtures.largeBufferHolding(pool, first, 2);
    private final MagByteBuf inSecond = StressFixtures.largeBufferHolding(pool, second, 2);

    @Actor
    public void releaseFirst() {
        first.release(inFirst, Thread.currentThread().getId());
    }

    @Actor
    public void releaseSecond() {
        second.release(inSecond, Thread.currentThread().getId());
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = StressFixtures.retired(pool);
        r.r2 = StressFixtures.largeChunkCount(stripe);
        r.r3 = stripe.tryLock() ? 1 : 0;
    }
}
