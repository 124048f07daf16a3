package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
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
 * A buffer with one reference is retained by one thread while another releases it: the retain lands before the
 * release (which then does not deallocate) or is refused with {@link IllegalReferenceCountException}. A retain that
 * succeeds on a buffer the release deallocated would hand its caller freed memory. Both sides are compare-and-swap
 * loops on the count in {@link io.github.magalloc.buffer.MagByteBuf}; a retain that reads the count and then stores
 * count + 1 lets the release slip in between (outcome {@code 1, 1, 2}). Debug mode: objects are never recycled, so
 * the arbiter reads this state's object and nothing else.
 */
@JCStressTest
@Description("refCnt 1: retain on one thread, release on another: never both a successful retain and a deallocation")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "retain first: the release did not deallocate, one reference left")
@Outcome(id = "2, 1, 0", expect = ACCEPTABLE, desc = "release first: deallocated, the retain was refused")
@Outcome(id = {"1, 1, 0", "1, 1, 1", "1, 1, 2"}, expect = FORBIDDEN,
    desc = "the retain succeeded on a deallocated buffer: its caller holds freed memory")
@Outcome(expect = FORBIDDEN, desc = "anything else (no deallocation and no reference left, another exception)")
@State
public class RetainReleaseStress {
    static final MagazineByteBufAllocator DEBUG = MagazineByteBufAllocator.builder().debug(true).build();

    private final ByteBuf buf = DEBUG.directBuffer(256);

    /** 1: retained; 2: refused as released; 3: anything else. */
    @Actor
    public void retain(III_Result r) {
        try {
            buf.retain();
            r.r1 = 1;
        } catch (IllegalReferenceCountException e) {
            r.r1 = 2;
        } catch (RuntimeException e) {
            r.r1 = 3;
        }
    }

    /** 1: deallocated; 0: count decremented only; 3: threw. */
    @Actor
    public void release(III_Result r) {
        try {
            r.r2 = buf.release() ? 1 : 0;
        } catch (RuntimeException e) {
            r.r2 = 3;
        }
    }

    /** The count left; a buffer still held is released so the run leaks nothing. */
    @Arbiter
    public void refCnt(III_Result r) {
        int count = buf.refCnt();
        r.r3 = count;
        if (count > 0 && r.r2 != 1) {
            buf.release(count);
        }
    }
}
