package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

/**
 * The recycled buffer objects of one platform thread (its "home") for buffers without a segment slot (shared
 * magazines, large and huge buffers): the only place such a released {@link MagByteBuf} object goes back to, and the
 * only place an allocation on that thread takes one from. Virtual threads, too many and too short-lived to keep
 * one each, share their stripe's {@link VirtualThreadObjects} instead.
 *
 * <h2>Where a buffer object can be</h2>
 * <ol>
 *   <li><b>live</b>: handed out by an allocation on its home thread, reference count above 0;</li>
 *   <li><b>spare</b>: on its home's {@link #spare} stack (released on the home thread);</li>
 *   <li><b>returned</b>: in its home's {@link #returned} queue (released on another thread), until the home thread
 *       moves it to the spare stack;</li>
 *   <li><b>dropped</b>: left to the garbage collector (stack or queue full, home closed, debug mode).</li>
 * </ol>
 * Transitions: live -> spare | returned | dropped by the releasing thread; returned -> spare and spare -> live by
 * the home thread only.
 *
 * <h2>Invariant</h2>
 * A buffer object is handed out only by an allocation on its home thread, and only from this cache. Hence, after a
 * thread releases a buffer it allocated, nobody else can be handed that object until this thread allocates again:
 * a stale reference used in the meantime (a second {@code release()}, a read, {@code refCnt()}) sees a count of 0
 * and fails with {@code IllegalReferenceCountException} instead of acting on a buffer that now belongs to another
 * thread. Netty's own recycler gives the same guarantee, and Netty's buffer tests rely on it (release, then release
 * again expecting the exception). A stack shared by a stripe's threads would break it: any other thread using the
 * stripe could be handed the object at once, and a stale second release would free that thread's live buffer.
 *
 * <p>Released objects keep no memory reachable: {@link #recycle} clears their memory references first.
 *
 * <p>Objects of thread magazines' size-classed buffers do not come here: they stay with their segment
 * ({@link SizeClassChunk#allocateBound}), which only the owner thread hands out. Together: protocol 5 (buffer objects).
 */
final class BufferObjectCache extends ObjectCache {
    /** Spare objects kept per thread; the owner's stack, so no atomics. */
    static final int SPARE_OBJECTS = 128;
    /**
     * Objects released on other threads waiting for the home thread. Producer-consumer pipelines return objects
     * here faster than the producer takes them in bursts; eight stacks' worth absorbs that without dropping.
     */
    static final int RETURNED_OBJECTS = SPARE_OBJECTS * 8;

    private final PoolContext context;
    /** The home thread's id: compared with the releasing thread's on every recycle. */
    final long ownerThreadId;
    private final MagByteBuf[] spare;
    private int spareCount;
    /** How many spare objects the home thread keeps: the stack's length, 0 once closed. Home thread only. */
    private int spareLimit;
    private final MpscAtomicArrayQueue<MagByteBuf> returned;
    /**
     * Set when the home thread's magazine ends (any thread may then still release the home's objects); objects then
     * go to the GC instead of piling up here. Volatile: a releaser that reads it false may still queue one object,
     * which {@link #close} leaves to be collected with this cache.
     */
    private volatile boolean closed;


    /** A cache for the thread {@code ownerThreadId}; in debug mode it keeps nothing, so objects are never reused. */
    BufferObjectCache(PoolContext context, long ownerThreadId) {
        this.context = context;
        this.ownerThreadId = ownerThreadId;
        boolean keeps = !context.isDebug();
        this.spare = new MagByteBuf[keeps ? SPARE_OBJECTS : 0];
        this.spareLimit = spare.length;
        this.returned = keeps ? new MpscAtomicArrayQueue<>(RETURNED_OBJECTS) : null;
        this.closed = !keeps;
    }

    /** Home thread only: a recycled object, or a new one. Its memory is set by the caller. */
    @Override
    MagByteBuf take() {
        int n = spareCount;
        if (n == 0 && (n = collectReturned()) == 0) {
            return context.newBufferObject(this);
        }
        spareCount = --n;
        MagByteBuf buf = spare[n];
        spare[n] = null;
        return buf;
    }

    /** Cold: moves objects released on other threads to the spare stack; returns the new spare count. */
    private int collectReturned() {
        MpscAtomicArrayQueue<MagByteBuf> queue = returned;
        if (queue == null) {
            return 0;
        }
        MagByteBuf[] stack = spare;
        int n = 0;
        MagByteBuf buf;
        while (n < stack.length && (buf = queue.relaxedPoll()) != null) {
            stack[n++] = buf;
        }
        spareCount = n;
        return n;
    }

    /**
     * Any thread, after the object's memory was given back: clears its memory references (a kept object must not
     * keep a freed slab reachable), then the home thread keeps it on its stack, other threads queue it for the home
     * thread. The home thread queues it too when its stack is full, so a burst of releases larger than the stack
     * keeps its objects (up to the queue's capacity) for the next burst of allocations. Full queue, or a closed
     * home: dropped.
     */
    @Override
    public void recycle(MagByteBuf buf, long threadId) {
        buf.forgetMemory();
        if (threadId == ownerThreadId) {
            int n = spareCount;
            if (n < spareLimit) {
                spare[n] = buf;
                spareCount = n + 1;
                return;
            }
        }
        if (!lvClosed()) {
            returned.offer(buf);
        }
    }

    @Override
    boolean handedOutOn(MagByteBuf buf, long threadId) {
        return threadId == ownerThreadId;
    }

    /**
     * The home thread's magazine has ended: drop every object kept, and keep none from now on. Runs on the home
     * thread (exit, detach) or, once it has died, on the thread that reaps its magazine, which is then the only one
     * touching the stack and the only consumer of the queue. An object returned by a release racing with this stays
     * in the queue and is collected with this cache.
     */
    void close() {
        svClosed(true);
        spareLimit = 0;
        while (spareCount > 0) {
            spare[--spareCount] = null;
        }
        if (returned != null) {
            returned.clear();
        }
    }

    private boolean lvClosed() {
        return closed;
    }

    private void svClosed(boolean value) {
        closed = value;
    }
}
