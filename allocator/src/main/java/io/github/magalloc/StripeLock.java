package io.github.magalloc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The lock of a shared magazine: a CAS to take it, an ordered store to give it back. Critical sections are a
 * few dozen instructions (one allocation), so waiting spins briefly and then yields instead of parking; and
 * {@link MemoryPool} waits only when every stripe is busy. Unlike {@code ReentrantLock}, unlocking costs no
 * fence on x86. Not reentrant.
 */
final class StripeLock {
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(StripeLock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int SPINS_BEFORE_YIELD = 64;

    private volatile int state;

    /** Acquire semantics on success: the previous holder's writes are visible. */
    boolean tryLock() {
        return state == 0 && STATE.compareAndSet(this, 0, 1);
    }

    void lock() {
        int spins = 0;
        while (!tryLock()) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                spins = 0;
                Thread.yield();
            }
        }
    }

    /** Release semantics: everything written under the lock is visible to the next holder. */
    void unlock() {
        STATE.setRelease(this, 0);
    }
}
