package io.github.magalloc.core;

import io.netty.util.internal.PlatformDependent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The module's one spin lock: a shared magazine's (a {@link Stripe}, or an {@link EndedMagazine}: whoever holds it owns
 * the magazine's lists), and a {@link LargeChunk}'s (it guards the chunk's pages). A CAS takes it, an ordered (release)
 * store gives it back. Critical sections are a few dozen instructions (one allocation), so waiting spins briefly and
 * then lets others run: a platform thread yields, a virtual thread spins longer, yields a few times and then parks for
 * a moment ({@link #backOff}). No holder parks or blocks while it holds the lock, so a virtual thread holding it never
 * leaves its carrier. {@link Stripes} waits only when every stripe is busy. Unlike {@code ReentrantLock}, unlocking
 * costs no fence on x86. Not reentrant.
 *
 * <p>A release store orders what the holder wrote before it, not the loads after it: x86 lets the holder's next
 * loads run while the store still sits in its store buffer. So a thread that publishes work for the holder and then
 * reads the lock word once may read it held while the holder, having unlocked, reads that work as absent (the
 * store-buffering litmus test). The rule that follows: <b>nobody leaves work for the holder</b>. A thread with work
 * that needs the lock waits for it and does the work itself ({@link Stripe} and {@link EndedMagazine} releases,
 * their sweeps). A volatile store here would make handing work over safe, but would cost a fence on every unlock,
 * that is on every plain-thread allocation and release.
 *
 * <p>The lock word has cache lines to itself ({@link CacheLinePadding}'s rule, before and after): threads working on
 * different stripes must not invalidate each other's line on every CAS, whatever objects the allocation order or a
 * copying GC put next to the lock.
 */
final class MagazineLock extends MagazineLockState {
    byte q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015;
    byte q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111, q112, q113, q114, q115;
    byte q200, q201, q202, q203, q204, q205, q206, q207, q208, q209, q210, q211, q212, q213, q214, q215;
    byte q300, q301, q302, q303, q304, q305, q306, q307, q308, q309, q310, q311, q312, q313, q314, q315;
    byte q400, q401, q402, q403, q404, q405, q406, q407, q408, q409, q410, q411, q412, q413, q414, q415;
    byte q500, q501, q502, q503, q504, q505, q506, q507, q508, q509, q510, q511, q512, q513, q514, q515;
    byte q600, q601, q602, q603, q604, q605, q606, q607, q608, q609, q610, q611, q612, q613, q614, q615;
    byte q700, q701, q702, q703, q704, q705, q706, q707, q708, q709, q710, q711, q712, q713, q714, q715;

    private static final int SPINS_BEFORE_YIELD = 64;
    /**
     * A waiting virtual thread spins this long before it first yields: a yield unmounts it, which copies its stack
     * into a heap object (garbage) and takes microseconds, while in a burst of requests a stripe is usually free
     * again within a few hundred spins.
     */
    private static final int VIRTUAL_THREAD_SPINS_BEFORE_YIELD = 512;
    /**
     * A waiting virtual thread then yields this many times, {@link #SPINS_BEFORE_YIELD} spins apart, before it parks:
     * a timed park makes more garbage (the JDK schedules a timer task for it), and a few yields
     * usually outlast a holder whose carrier the operating system had set aside for a moment.
     */
    private static final int VIRTUAL_THREAD_YIELDS = 3;
    /** A virtual thread's spins until it parks; it starts counting again after the park. */
    private static final int VIRTUAL_THREAD_SPINS_BEFORE_PARK =
        VIRTUAL_THREAD_SPINS_BEFORE_YIELD + SPINS_BEFORE_YIELD * VIRTUAL_THREAD_YIELDS;
    /** How long a waiting virtual thread parks between attempts: far longer than a critical section. */
    private static final long VIRTUAL_THREAD_PARK_NANOS = 10_000;

    /** Acquire semantics on success: the previous holder's writes are visible. */
    boolean tryLock() {
        return lvState() == FREE && casState(FREE, HELD);
    }

    void lock() {
        for (int spins = 0; !tryLock(); spins = backOff(spins)) {
            // backOff waits
        }
    }

    /** Release semantics: everything written under the lock is visible to the next holder. */
    void unlock() {
        assert lvState() == HELD : "unlock of a free lock";
        soState(FREE);
    }

    /** Whether some thread holds the lock now (a snapshot; for assertions of the lock holder's methods). */
    boolean isHeld() {
        return lvState() == HELD;
    }

    /** How a waiter waits after a failed attempt: spins briefly, then lets others run; returns the new spin count. */
    private static int backOff(int spins) {
        int next = spins + 1;
        if (next % SPINS_BEFORE_YIELD != 0) {
            Thread.onSpinWait();
            return next;
        }
        return letOthersRun(next);
    }

    /**
     * Cold, every {@link #SPINS_BEFORE_YIELD} spins of a wait: a platform thread yields its core; a virtual thread
     * spins on up to {@link #VIRTUAL_THREAD_SPINS_BEFORE_YIELD}, yields {@link #VIRTUAL_THREAD_YIELDS} times and then
     * parks for a moment, which unmounts it and gives its carrier to other virtual threads. Yields alone are not
     * enough there: a yielding virtual thread is queued again where its carrier looks first, so as many waiters as
     * carriers can keep every carrier, and no other virtual thread runs until the lock is free (no holder parks, but
     * a platform holder can be descheduled). Returns the spin count to go on from.
     */
    private static int letOthersRun(int spins) {
        if (!PlatformDependent.isVirtualThread(Thread.currentThread())) {
            Thread.yield();
            return 0;
        }
        if (spins < VIRTUAL_THREAD_SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
            return spins;
        }
        if (spins < VIRTUAL_THREAD_SPINS_BEFORE_PARK) {
            Thread.yield();
            return spins;
        }
        LockSupport.parkNanos(VIRTUAL_THREAD_PARK_NANOS);
        return 0;
    }
}

/** The lock word, after the leading padding. */
abstract class MagazineLockState extends CacheLinePadding {
    static final int FREE = 0;
    static final int HELD = 1;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(MagazineLockState.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #FREE} or {@link #HELD}; accessed only through the methods below. */
    private volatile int state;

    final int lvState() {
        return state;
    }

    final boolean casState(int expect, int update) {
        return STATE.compareAndSet(this, expect, update);
    }

    final void soState(int value) {
        STATE.setRelease(this, value);
    }
}
