package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Work that is pending at most once at a time and never missed: whoever may have made it due asks for it
 * ({@link #request}) after its own write; the scheduled run does the work, clears its flag and looks again.
 *
 * <p>Invariant, whenever the work does not run: {@code isDue() => scheduled == 1} (a run is pending). A requester
 * writes what makes the work due and then reads the flag; the run clears the flag and then reads whether the work
 * is due: Dekker's handshake on two volatiles, so at least one of the two sees the other's write.
 */
final class DueTask {
    private final BackgroundThread.Scheduler scheduler;
    private final LongSupplier delayMillis;
    private final BooleanSupplier isDue;
    private final Runnable work;
    /** Whether the work may run on the requesting thread when no thread can be scheduled (else it is skipped). */
    private final boolean runOnRequesterIfUnscheduled;
    /** The same task object every time: scheduling it makes no garbage. */
    private final Runnable run = this::run;
    /** 1 from the request that scheduled a run until that run has done the work and cleared it, else 0. */
    private volatile int scheduled;

    private static final VarHandle SCHEDULED;

    static {
        try {
            SCHEDULED = MethodHandles.lookup().findVarHandle(DueTask.class, "scheduled", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * {@code work} runs on {@code scheduler}'s thread {@code delayMillis} after the request that found it due and
     * none pending; where no thread can be had, on the requester if {@code runOnRequesterIfUnscheduled}.
     */
    DueTask(BackgroundThread.Scheduler scheduler, LongSupplier delayMillis, BooleanSupplier isDue, Runnable work,
            boolean runOnRequesterIfUnscheduled) {
        this.scheduler = scheduler;
        this.delayMillis = delayMillis;
        this.isDue = isDue;
        this.work = work;
        this.runOnRequesterIfUnscheduled = runOnRequesterIfUnscheduled;
    }

    /**
     * Any thread, cold, after the write that may have made the work due (the handshake's write): schedules a run if
     * the work is due and none is pending.
     */
    void request() {
        if (isDue.getAsBoolean() && lvScheduled() == 0 && casScheduled(0, 1)) {
            schedule();
        }
    }

    private void schedule() {
        try {
            scheduler.schedule(run, delayMillis.getAsLong());
        } catch (RuntimeException | Error e) {
            // No thread to run it (one could not be started).
            if (runOnRequesterIfUnscheduled) {
                run();
            } else {
                svScheduled(0);
            }
        }
    }

    /** The pending run: does the work, then clears the flag and looks again (the handshake's read). */
    void run() {
        try {
            work.run();
        } finally {
            svScheduled(0);
        }
        request();
    }

    /** True while a run is pending; tests read it. */
    boolean isPending() {
        return lvScheduled() != 0;
    }

    private int lvScheduled() {
        return scheduled;
    }

    /** Of many requesters that find the work due and none pending, one schedules it. */
    private boolean casScheduled(int expect, int update) {
        return SCHEDULED.compareAndSet(this, expect, update);
    }

    /** Volatile, not a release store: it must not pass the read of {@link #isDue} after it. */
    private void svScheduled(int value) {
        scheduled = value;
    }
}
