package io.github.magalloc.core;


import java.util.concurrent.locks.LockSupport;

/**
 * The module's one spin lock: a shared magazine's (a {@link Stripe}, or an {@link EndedMagazine}: whoever holds it owns
 * the magazine's lists), and a {@link LargeChunk}'s (it guards the chunk's pages). A CAS takes it, an ordered (release)
 * store gives it back. Critical sections are a few dozen instructions (one allocation), so waiting spins briefly and
 * then lets others run: a platform thread yields, a virtual thread spins longer, yields a few times and then parks for
 * a moment ({@link #backOff}), its interrupt put aside for the wait. No holder parks, blocks or starts a thread while it
 * holds the lock, so a virtual thread holding it never leaves its carrier: what a shared magazine's holder retires goes
 * back to the supply after its unlock ({@link GivenBackAfterUnlock}), and the only monitors a holder takes (the reuse
 * pool's, a list of slabs') are never held while blocking. {@link Stripes} waits only when every stripe is busy. Unlike {@code ReentrantLock}, unlocking
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
 * <p>One protocol, a lock word per holder ({@link Word}): a stripe's and a hand-over's is a padded object of its own
 * ({@link PaddedSpinLock}: threads working on different stripes must not invalidate each other's line on every CAS), a
 * large chunk's a field of the chunk (a padded object per chunk would be garbage when the chunk goes, and releasers of
 * one chunk share its lines anyway).
 */
final class SpinLock {
    static final int FREE = 0;
    static final int HELD = 1;

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

    private SpinLock() {
    }

    /** A lock word: {@link #FREE} or {@link #HELD}, accessed only through these, with the modes their names say. */
    interface Word {
        int lvLockWord();

        /** Acquire semantics on success: the previous holder's writes are visible. */
        boolean casLockWord(int expect, int update);

        /** Release semantics: everything written under the lock is visible to the next holder. */
        void soLockWord(int value);
    }

    static boolean tryLock(Word word) {
        return word.lvLockWord() == FREE && word.casLockWord(FREE, HELD);
    }

    static void lock(Word word) {
        if (!tryLock(word)) {
            lockAfterWaiting(word);
        }
    }

    /**
     * Cold: waits for the lock. An interrupted virtual thread's park returns at once, so its interrupt is cleared for
     * the wait (it would spin through every park) and set again once it holds the lock: the caller keeps it.
     */
    private static void lockAfterWaiting(Word word) {
        boolean interrupted = false;
        for (int spins = 0; !tryLock(word); ) {
            spins = backOff(spins);
            if (spins == 0 && Thread.interrupted()) { // after a yield or a park
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    static void unlock(Word word) {
        assert word.lvLockWord() == HELD : "unlock of a free lock";
        word.soLockWord(FREE);
    }

    /** Whether some thread holds the lock now (a snapshot; for assertions of the lock holder's methods). */
    static boolean isHeld(Word word) {
        return word.lvLockWord() == HELD;
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
        if (!VirtualThreads.isVirtual(Thread.currentThread())) {
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
