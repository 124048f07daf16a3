package io.github.magalloc.buffer;

import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import static io.netty.util.internal.ObjectUtil.checkPositive;

/**
 * Netty's reference-count contract on a field of the buffer object itself, not Netty's
 * {@code AbstractReferenceCountedByteBuf}, which (Netty 4.2) keeps the count in a separate {@code RefCnt} object: one
 * more object per buffer, and one more cache line to miss when a buffer object comes back cold (with thousands of
 * live buffers released in random order, that miss is a large part of an allocate-and-release). {@code retain} and
 * {@code release} are compare-and-swap loops, so of two threads releasing the last reference at once exactly one
 * deallocates and the other gets {@link IllegalReferenceCountException}; a released buffer reads count 0.
 *
 * <p>Memory order: {@code lp}/{@code sp} plain, {@code cas} compare-and-swap on {@link #refCnt}, the only field of a
 * buffer object other threads write.
 */
public abstract class CountedByteBuf extends AbstractByteBuf {
    private static final VarHandle REF_CNT;

    static {
        try {
            REF_CNT = MethodHandles.lookup().findVarHandle(CountedByteBuf.class, "refCnt", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * References held: {@code > 0} while handed out, 0 once released (and before the first hand-out). Written plainly
     * when the object is handed out ({@link #spRefCnt}: to this thread, and any other thread reaches it through the
     * caller's own hand-over, which publishes the count with the rest of the buffer) and by compare-and-swap in
     * {@link #retain0} and {@link #release0}; read plainly by {@link #refCnt()} and as the guess of each loop.
     */
    private int refCnt;

    CountedByteBuf() {
        super(0);
    }

    /** The count reached zero ({@link #release0}'s compare-and-swap decided which release that was). */
    abstract void deallocate();

    /**
     * A plain read, as Netty's own accessibility check ({@code isLiveNonVolatile}): every accessor asks
     * {@code ensureAccessible()}, which calls this, and a volatile read there would keep the JIT from hoisting the
     * check out of a loop. A thread that must see another thread's release orders itself after it the way it must
     * for the buffer's contents (a queue, a lock, a join).
     */
    @Override
    public final int refCnt() {
        return lpRefCnt();
    }

    private int lpRefCnt() {
        return (int) REF_CNT.get(this);
    }

    /** Plain: the object is being handed out, by the thread that then owns it. */
    final void spRefCnt(int count) {
        REF_CNT.set(this, count);
    }

    private boolean casRefCnt(int expect, int update) {
        return REF_CNT.compareAndSet(this, expect, update);
    }

    @Override
    public final ByteBuf retain() {
        return retain0(1);
    }

    @Override
    public final ByteBuf retain(int increment) {
        return retain0(checkPositive(increment, "increment"));
    }

    /** CAS, so a retain racing a release either lands before it (the release does not free) or fails. */
    private ByteBuf retain0(int increment) {
        int count;
        do {
            count = lpRefCnt();
            if (count == 0 || count > Integer.MAX_VALUE - increment) {
                throw new IllegalReferenceCountException(count, increment);
            }
        } while (!casRefCnt(count, count + increment));
        return this;
    }

    @Override
    public final boolean release() {
        return release0(1);
    }

    @Override
    public final boolean release(int decrement) {
        return release0(checkPositive(decrement, "decrement"));
    }

    /**
     * CAS: of two threads taking the count to zero at once (a double release, a caller's bug) exactly one succeeds
     * and deallocates, and the other sees the count below its decrement and throws, so the memory goes back once.
     * The plain read is only a guess; the CAS (a full fence) checks it and makes the loop read again.
     */
    private boolean release0(int decrement) {
        int count;
        do {
            count = lpRefCnt();
            if (count < decrement) {
                throw new IllegalReferenceCountException(count, -decrement);
            }
        } while (!casRefCnt(count, count - decrement));
        if (count != decrement) {
            return false;
        }
        deallocate();
        return true;
    }

    @Override
    public final ByteBuf touch() {
        return this;
    }

    @Override
    public final ByteBuf touch(Object hint) {
        return this;
    }

}
