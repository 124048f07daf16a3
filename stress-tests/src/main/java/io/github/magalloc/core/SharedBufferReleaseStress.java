package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
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
 * A buffer retained once (refCnt 2) is released by two threads at the same time: exactly one release deallocates.
 * The allocator runs in debug mode, whose per-segment in-use bit throws on a second deallocation of the segment.
 */
@JCStressTest
@Description("refCnt 2 -> 0 by two threads: exactly one deallocation")
@Outcome(id = {"1, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "the second release (either thread) deallocated")
@Outcome(id = "1, 1, 0", expect = FORBIDDEN, desc = "both deallocated: double free")
@Outcome(id = "0, 0, 0", expect = FORBIDDEN, desc = "neither deallocated: leak")
@Outcome(expect = FORBIDDEN, desc = "a release threw (debug mode saw a double free) or refCnt is not 0")
@State
public class SharedBufferReleaseStress {
    static final MagazineByteBufAllocator DEBUG = MagazineByteBufAllocator.builder().debug(true).build();

    private final ByteBuf buf = DEBUG.directBuffer(256).retain();

    @Actor
    public void first(III_Result r) {
        r.r1 = release();
    }

    @Actor
    public void second(III_Result r) {
        r.r2 = release();
    }

    private int release() {
        try {
            return buf.release() ? 1 : 0;
        } catch (RuntimeException e) {
            return 2;
        }
    }

    @Arbiter
    public void refCnt(III_Result r) {
        r.r3 = buf.refCnt();
    }
}
