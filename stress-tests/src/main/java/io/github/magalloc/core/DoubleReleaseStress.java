package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A caller's bug: two threads release the same buffer, whose count is 1, at the same time. The policy is Netty's:
 * the count is decremented with a compare-and-swap, so exactly one release deallocates and the other throws
 * {@link IllegalReferenceCountException}; the segment goes back once (protocol 1 (release from any thread)). A
 * release that read the count and then stored 0 would let both through, and the segment would go on a free list
 * twice: outcome {@code 1, 1}.
 *
 * <p>Nothing reads the buffer after the race: once released, its object goes back to the thread that built this
 * state, which builds the next state with it, so a late read would see that next buffer (a stale reference).
 */
@JCStressTest
@Description("refCnt 1 released by two threads at once: one deallocates, the other gets IllegalReferenceCountException")
@Outcome(id = {"1, 2", "2, 1"}, expect = ACCEPTABLE, desc = "one release deallocated, the other was refused")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "both deallocated: the segment is free twice and will be handed out twice")
@Outcome(expect = FORBIDDEN, desc = "no release deallocated, or another exception")
@State
public class DoubleReleaseStress {
    /** One allocator for the whole run, as users have. */
    private static final MagazineByteBufAllocator ALLOCATOR = MagazineByteBufAllocator.builder().build();

    private final ByteBuf buf = ALLOCATOR.directBuffer(256);

    @Actor
    public void first(II_Result r) {
        r.r1 = release();
    }

    @Actor
    public void second(II_Result r) {
        r.r2 = release();
    }

    /** 1: deallocated; 0: count decremented but not deallocated; 2: refused as released; 3: anything else. */
    private int release() {
        try {
            return buf.release() ? 1 : 0;
        } catch (IllegalReferenceCountException e) {
            return 2;
        } catch (RuntimeException e) {
            return 3;
        }
    }
}
