package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A {@link SpinLock} that is an object of its own, its lock word with cache lines to itself ({@link CacheLinePadding}'s
 * rule, before and after): a stripe's, whose owner it decides, and an {@link EndedMagazine}'s. Threads working on
 * different stripes must not invalidate each other's line on every CAS, whatever objects the allocation order or a
 * copying GC put next to the lock.
 */
final class PaddedSpinLock extends PaddedSpinLockWord {
    byte q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015;
    byte q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111, q112, q113, q114, q115;
    byte q200, q201, q202, q203, q204, q205, q206, q207, q208, q209, q210, q211, q212, q213, q214, q215;
    byte q300, q301, q302, q303, q304, q305, q306, q307, q308, q309, q310, q311, q312, q313, q314, q315;
    byte q400, q401, q402, q403, q404, q405, q406, q407, q408, q409, q410, q411, q412, q413, q414, q415;
    byte q500, q501, q502, q503, q504, q505, q506, q507, q508, q509, q510, q511, q512, q513, q514, q515;
    byte q600, q601, q602, q603, q604, q605, q606, q607, q608, q609, q610, q611, q612, q613, q614, q615;
    byte q700, q701, q702, q703, q704, q705, q706, q707, q708, q709, q710, q711, q712, q713, q714, q715;

    boolean tryLock() {
        return SpinLock.tryLock(this);
    }

    void lock() {
        SpinLock.lock(this);
    }

    void unlock() {
        SpinLock.unlock(this);
    }

    boolean isHeld() {
        return SpinLock.isHeld(this);
    }
}

/** The lock word, after the leading padding. */
abstract class PaddedSpinLockWord extends CacheLinePadding implements SpinLock.Word {
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PaddedSpinLockWord.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link SpinLock#FREE} or {@link SpinLock#HELD}; accessed only through the methods below. */
    private volatile int state;

    @Override
    public final int lvLockWord() {
        return state;
    }

    @Override
    public final boolean casLockWord(int expect, int update) {
        return STATE.compareAndSet(this, expect, update);
    }

    @Override
    public final void soLockWord(int value) {
        STATE.setRelease(this, value);
    }
}
