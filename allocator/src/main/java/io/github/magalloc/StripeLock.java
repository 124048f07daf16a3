package io.github.magalloc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The lock of a shared magazine: a CAS to take it, an ordered store to give it back. Critical sections are a
 * few dozen instructions (one allocation), so waiting spins briefly and then yields instead of parking; and
 * {@link MemoryPool} waits only when every stripe is busy. Unlike {@code ReentrantLock}, unlocking costs no
 * fence on x86. Not reentrant.
 *
 * <p>A release store orders what the holder wrote before it, not the loads after it: x86 lets the holder's next
 * loads run while the store still sits in its store buffer. So a thread that publishes work for the holder and
 * then reads the lock word once may read it held while the holder, having unlocked, reads that work as absent.
 * {@link Magazine} therefore never leaves work for the holder: a thread with work that needs the lock waits for
 * it and does the work itself ({@link Magazine#releaseShared}, {@link Magazine#onRemoteReleaseRaced},
 * {@link Magazine#onLargeChunkEmptied}). A volatile store here would make handing work over safe, but costs a
 * fence on every unlock: 9 ns per allocate-and-release on plain threads on a Zen 5 host.
 *
 * <p>The lock word has cache lines to itself (padding before and after, in super- and subclass so the JVM cannot
 * move it): threads working on different stripes must not invalidate each other's line on every CAS, whatever
 * objects the allocation order or a copying GC put next to the lock.
 */
final class StripeLock extends StripeLockState {
    byte q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015;
    byte q016, q017, q018, q019, q020, q021, q022, q023, q024, q025, q026, q027, q028, q029, q030, q031;
    byte q032, q033, q034, q035, q036, q037, q038, q039, q040, q041, q042, q043, q044, q045, q046, q047;
    byte q048, q049, q050, q051, q052, q053, q054, q055, q056, q057, q058, q059, q060, q061, q062, q063;
    byte q064, q065, q066, q067, q068, q069, q070, q071, q072, q073, q074, q075, q076, q077, q078, q079;
    byte q080, q081, q082, q083, q084, q085, q086, q087, q088, q089, q090, q091, q092, q093, q094, q095;
    byte q096, q097, q098, q099, q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111;
    byte q112, q113, q114, q115, q116, q117, q118, q119, q120, q121, q122, q123, q124, q125, q126, q127;

    private static final int SPINS_BEFORE_YIELD = 64;

    /** Acquire semantics on success: the previous holder's writes are visible. */
    boolean tryLock() {
        return state == 0 && casState(0, 1);
    }

    void lock() {
        for (int spins = 0; !tryLock(); spins = backOff(spins)) {
            // backOff waits
        }
    }

    /**
     * How every magalloc spin lock waits after a failed attempt: spins briefly, then yields; returns the new spin
     * count. Shared with {@link LargeChunk}'s lock, whose word lives in the chunk itself.
     */
    static int backOff(int spins) {
        if (spins + 1 < SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
            return spins + 1;
        }
        Thread.yield();
        return 0;
    }

    /** Release semantics: everything written under the lock is visible to the next holder. */
    void unlock() {
        soState(0);
    }
}

abstract class StripeLockState extends CacheLinePadding {
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(StripeLockState.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    volatile int state;

    final boolean casState(int expect, int update) {
        return STATE.compareAndSet(this, expect, update);
    }

    final void soState(int value) {
        STATE.setRelease(this, value);
    }
}
