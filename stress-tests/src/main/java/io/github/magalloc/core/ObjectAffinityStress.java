package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.buffer.MagByteBuf;
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
 * The buffer-object return protocol ({@link BufferObjectCache}), through the public API of one long-lived
 * allocator with a single shared magazine, as two plain threads use it: each allocates a buffer and releases it;
 * the first then reads its stale reference, as Netty's own tests and careless callers do. A released object goes
 * back to the cache of the thread that allocated it and only that thread hands it out again, so neither thread can
 * be given the other's object, and the stale read sees a count of 0 (object affinity, protocol 5 (buffer objects)).
 * A stack of objects shared by the stripe's threads would let the other thread's allocation take a released object
 * at once (outcomes {@code *, *, 1} and {@code 1, *, *}).
 */
@JCStressTest
@Description("two plain threads allocate and release through one shared magazine; one reads its stale reference")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "each thread got an object of its own; the stale reference reads 0")
@Outcome(id = ".*, .*, 1", expect = FORBIDDEN, desc = "an object released by one thread was handed to the other")
@Outcome(id = "1, .*, .*", expect = FORBIDDEN, desc = "a stale reference of the releasing thread saw a live buffer: the object was handed out again")
@Outcome(expect = FORBIDDEN, desc = "other")
@State
public class ObjectAffinityStress {
    /** One allocator for the whole run, as users have: objects and memory are recycled across states. */
    private static final MagazineByteBufAllocator ALLOCATOR =
        MagazineByteBufAllocator.builder().sharedMagazines(1).preferDirect(false).build();

    private MagByteBuf first;
    private MagByteBuf second;

    @Actor
    public void releaseThenReadStale(III_Result r) {
        ByteBuf buf = ALLOCATOR.heapBuffer(64);
        first = StressFixtures.magByteBuf(buf);
        buf.release();
        r.r1 = first.refCnt();
    }

    @Actor
    public void allocateAndRelease(III_Result r) {
        ByteBuf buf = ALLOCATOR.heapBuffer(64);
        second = StressFixtures.magByteBuf(buf);
        r.r2 = buf.refCnt();
        buf.release();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = first == second ? 1 : 0;
    }
}
