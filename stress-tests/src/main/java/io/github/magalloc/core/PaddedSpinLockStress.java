package io.github.magalloc.core;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The lock of shared magazines (stripes, protocol 2 (stripes), and ended thread magazines' hand-overs): two threads
 * take it (one with {@code lock()}, one spinning on {@code tryLock()}) and do a plain read-modify-write of two fields
 * under it, as a magazine's owner-only fields are written. Mutual exclusion and the release/acquire pairing must
 * make both updates visible and whole.
 */
@JCStressTest
@Description("two threads update plain fields under a PaddedSpinLock")
@Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "both critical sections ran, one after the other")
@Outcome(expect = FORBIDDEN, desc = "an update lost: the critical sections overlapped or a write was not visible")
@State
public class PaddedSpinLockStress {
    private final PaddedSpinLock lock = new PaddedSpinLock();
    private int first;
    private int second;

    @Actor
    public void locker() {
        lock.lock();
        try {
            update();
        } finally {
            lock.unlock();
        }
    }

    @Actor
    public void tryLocker() {
        while (!lock.tryLock()) {
            Thread.onSpinWait();
        }
        try {
            update();
        } finally {
            lock.unlock();
        }
    }

    private void update() {
        int a = first;
        second = second + 1;
        first = a + 1;
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = first;
        r.r2 = second;
    }
}
