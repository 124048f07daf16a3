package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * The recycled buffer objects of the virtual threads that allocate from one stripe. A virtual thread usually lives
 * for one request, so a cache of its own ({@link BufferObjectCache}: a stack and a queue) would be kilobytes of
 * garbage per request, and its objects would die with it. This home belongs to the stripe, outlives the virtual
 * threads, and hands its objects to any of them under one rule (protocol 5a (virtual threads' objects)):
 *
 * <pre>
 *   an object is handed out to thread t  only if  holder == t  or  holder has ended  or  holder == null
 * </pre>
 * where {@code holder} ({@link MagByteBuf#holder()}) is the thread the object was last handed out on, or null once
 * a sweep found that thread ended. A thread that runs can hold a stale reference to an object it was given; a
 * thread that has ended runs no code. So after a virtual thread releases a buffer it allocated, no other thread is
 * handed that object while this one lives, and a stale reference it uses meanwhile fails with
 * {@code IllegalReferenceCountException}, as with a cache of its own. {@code isAlive()} is exact: a thread's
 * termination happens-before another thread sees it return false, and a terminated thread never runs again.
 *
 * <h2>Where an object can be</h2>
 * <ol>
 *   <li><b>live</b>: handed out, {@code holder} its thread;</li>
 *   <li><b>waiting</b>: on the stack {@link #waiting}, a plain array guarded by the stripe's lock;</li>
 *   <li><b>dropped</b>: left to the garbage collector (stack full, a releasing thread other than the holder that
 *       finds the lock busy, debug mode).</li>
 * </ol>
 * The stripe's lock holder takes the first object the rule allows among the top {@value #LOOKS}, then among the
 * bottom {@value #LOOKS}: a stack, because the object on top was most likely released by the task this carrier ran
 * last, which has ended (a carrier runs the next virtual thread only after the last one unmounted), and is still in
 * this core's cache; the bottom too, because in a wave of releases the top objects' holders may all still run, and
 * the oldest objects' holders have most likely ended. The holder releasing its own buffer pushes under the lock,
 * waiting for it (as its release of a size-classed buffer's memory does); any other thread (an event loop releasing
 * what a virtual thread wrote) only tries the lock and drops the object if it is busy, so a consumer never waits for
 * the virtual threads' allocations.
 *
 * <h2>No ended thread kept: the sweep</h2>
 * A waiting object names its holder strongly (a weak reference per request would be garbage), so it would keep an
 * ended thread, and what its task references, reachable until the object is handed out again. The garbage
 * collector bounds that instead: a release that finds no sweep armed arms one ({@link #sweepArmed}, CAS), which runs
 * after the next garbage collection (when a canary object nothing references is collected, on the one daemon thread of
 * {@link AfterCollection}, started with the first allocator on JDK 21+): under the stripe's lock it clears every
 * waiting {@code holder} that has ended, and arms again if some holder still runs. So an ended thread outlives its end
 * by one collection at most because of this home.
 * <pre>
 *   whenever the lock is free:  a waiting object's holder has ended  =>  a sweep is armed, or the holder is null
 * </pre>
 * The sweep disarms before it takes the lock, and a release pushes under the lock and reads the flag after: if the
 * sweep took the lock first, the release's read comes after the disarming and arms again; if the release did,
 * the sweep sees its object.
 */
final class VirtualThreadObjects extends ObjectCache {
    /**
     * Objects a pool keeps for its virtual threads, shared out among its stripes: as many as a thousand requests of
     * four buffers hold at once and give back together (fewer, and the objects of such a wave are dropped and made
     * again by the next one), about 640 KiB of objects at most.
     */
    static final int OBJECTS_PER_POOL = 8192;
    /** Waiting objects looked at on each end of the stack per allocation before a new one is made. */
    static final int LOOKS = 16;
    /** The first JDK with virtual threads; before it, nobody sweeps, and no sweeper thread starts. */
    private static final int VIRTUAL_THREADS_JDK = 21;

    private static final VarHandle SWEEP_ARMED;

    static {
        try {
            SWEEP_ARMED = MethodHandles.lookup().findVarHandle(VirtualThreadObjects.class, "sweepArmed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PoolContext context;
    /** The stripe's lock: it guards {@link #waiting}, {@link #waitingCount} and the holders of waiting objects. */
    private final PaddedSpinLock lock;
    /** The most objects kept: this stripe's share of {@link #OBJECTS_PER_POOL}; 0 in debug mode. */
    private final int capacity;
    /**
     * Waiting objects, {@code [0, waitingCount)}, the last released on top. Lock holder only; made at the first
     * release, so an allocator no virtual thread uses keeps no array for them.
     */
    private MagByteBuf[] waiting;
    private int waitingCount;
    /** Runs the sweep after the next garbage collection. */
    private final AfterNextCollection sweeps;
    /**
     * {@link #sweep} as a task, made with the home (a method reference made at its first use would spin its class on
     * the releasing virtual thread, which is pinned while it does). It holds the home weakly: an armed sweep waits in
     * the JVM's cleaner for as long as a holder runs, and must not keep a dropped allocator's pool alive meanwhile
     * (protocol 8 (dropped allocators)).
     */
    private final Runnable sweepTask = new Sweep(this);
    /** True while a sweep is due after the next garbage collection; see the class comment. */
    private volatile boolean sweepArmed;

    /** Runs a task once, after the next garbage collection. */
    interface AfterNextCollection {
        void schedule(Runnable task);
    }

    /**
     * Registers a canary that nothing references ({@link AfterCollection}): the collector clears it at the next
     * collection, then the task runs. (A lambda, so that naming it does not start the sweeper's thread.)
     */
    static final AfterNextCollection AFTER_NEXT_COLLECTION = task -> AfterCollection.register(new Object(), task);

    /** The home of the stripe that {@code lock} guards, one of {@code pool}'s: its share of the pool's objects. */
    VirtualThreadObjects(PoolContext context, PaddedSpinLock lock) {
        this(context, lock, AFTER_NEXT_COLLECTION);
    }

    /** A home whose sweeps {@code sweeps} runs (the stress tests run them themselves). */
    VirtualThreadObjects(PoolContext context, PaddedSpinLock lock, AfterNextCollection sweeps) {
        this.context = context;
        this.lock = lock;
        this.sweeps = sweeps;
        int share = OBJECTS_PER_POOL / context.settings.sharedMagazines();
        this.capacity = context.isDebug() ? 0 : Math.max(LOOKS, share);
        if (capacity > 0 && sweeps == AFTER_NEXT_COLLECTION && Runtime.version().feature() >= VIRTUAL_THREADS_JDK) {
            // Started here, with the allocator, rather than by a virtual thread's first release: a virtual thread that
            // waits for another to finish initializing a class is pinned to its carrier.
            AfterCollection.start();
        }
    }

    /** The stripe's lock holder only: an object the rule lets the calling thread have, or a new one. */
    @Override
    MagByteBuf take() {
        assert lock.isHeld();
        Thread caller = Thread.currentThread();
        MagByteBuf buf = popHandableTo(caller);
        if (buf == null) {
            buf = context.newBufferObject(this);
        }
        buf.setHolder(caller);
        return buf;
    }

    /**
     * The first object {@code caller} may have among the top {@link #LOOKS} waiting objects, then among the bottom
     * {@code LOOKS}, taken off the stack; null if none.
     */
    private MagByteBuf popHandableTo(Thread caller) {
        int top = waitingCount - 1;
        int belowTopLooks = Math.max(top - LOOKS, -1);
        for (int i = top; i > belowTopLooks; i--) {
            if (mayHave(caller, waiting[i])) {
                return removeAt(i, top);
            }
        }
        // In a wave of releases the top holds the objects of the last releasers, which may still run: one that finds
        // the lock busy for its next release yields its carrier and queues behind other virtual threads before it
        // ends. The bottom holds the oldest objects, whose holders most likely ended.
        int bottomLooks = Math.min(belowTopLooks + 1, LOOKS);
        for (int i = 0; i < bottomLooks; i++) {
            if (mayHave(caller, waiting[i])) {
                return removeAt(i, top);
            }
        }
        return null;
    }

    /** The rule of this home (see the class comment). */
    private static boolean mayHave(Thread caller, MagByteBuf buf) {
        Thread holder = buf.holder();
        return holder == caller || holder == null || !holder.isAlive();
    }

    /** Takes {@code waiting[i]} off the stack, whose top is {@code waiting[top]}, and fills its place with the top. */
    private MagByteBuf removeAt(int i, int top) {
        MagByteBuf buf = waiting[i];
        waiting[i] = waiting[top];
        waiting[top] = null;
        waitingCount = top;
        return buf;
    }

    /**
     * Any thread, after the object's memory was given back: onto the stack, by the holder under the lock, by another
     * thread only if the lock is free; then a sweep is armed if none is, as the holder may end while it waits.
     */
    @Override
    public void recycle(MagByteBuf buf, long threadId) {
        buf.forgetMemory();
        if (capacity == 0) {
            return;
        }
        if (handedOutOn(buf, threadId)) {
            lock.lock();
        } else if (!lock.tryLock()) {
            return; // dropped: a consumer does not wait for the virtual threads' allocations
        }
        try {
            int n = waitingCount;
            if (n == capacity) {
                return; // dropped: the stack is full
            }
            if (waiting == null) {
                waiting = new MagByteBuf[capacity];
            }
            waiting[n] = buf;
            waitingCount = n + 1;
        } finally {
            lock.unlock();
        }
        if (!lvSweepArmed()) {
            armSweep();
        }
    }

    @Override
    boolean handedOutOn(MagByteBuf buf, long threadId) {
        return buf.holder() != null && buf.holder().getId() == threadId;
    }

    /** Cold: the sweep runs once a canary that nothing references has been collected. */
    private void armSweep() {
        if (casSweepArmed(false, true)) {
            sweeps.schedule(sweepTask);
        }
    }

    /**
     * After a garbage collection, on the sweeper's thread: disarmed first (a release after this arms the next
     * sweep), then, under the stripe's lock, every waiting object whose holder has ended forgets it; armed again if
     * a holder still runs.
     */
    void sweep() {
        svSweepArmed(false);
        boolean holdersRunning = false;
        lock.lock();
        try {
            for (int i = 0; i < waitingCount; i++) {
                Thread holder = waiting[i].holder();
                if (holder == null) {
                    continue;
                }
                if (holder.isAlive()) {
                    holdersRunning = true;
                } else {
                    waiting[i].setHolder(null);
                }
            }
        } finally {
            lock.unlock();
        }
        if (holdersRunning) {
            armSweep();
        }
    }

    /** A sweep, armed in the JVM's cleaner: of the home if it is still reachable, else nothing. */
    static final class Sweep implements Runnable {
        private final WeakReference<VirtualThreadObjects> home;

        Sweep(VirtualThreadObjects home) {
            this.home = new WeakReference<>(home);
        }

        @Override
        public void run() {
            VirtualThreadObjects live = home.get();
            if (live != null) {
                live.sweep();
            }
        }
    }

    /** Objects waiting now; for tests (racy without the lock). */
    int waitingCount() {
        return waitingCount;
    }

    boolean lvSweepArmed() {
        return sweepArmed;
    }

    private void svSweepArmed(boolean armed) {
        sweepArmed = armed;
    }

    /** Of many releases that find no sweep armed, one registers the next. */
    private boolean casSweepArmed(boolean expect, boolean update) {
        return SWEEP_ARMED.compareAndSet(this, expect, update);
    }
}
