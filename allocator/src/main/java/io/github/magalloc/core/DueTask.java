package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Work that is pending at most once at a time and never missed: whoever may have made it due asks for it
 * ({@link #request}) after its own write; the scheduled run does the work, clears its flag and looks again.
 *
 * <p>Invariant, whenever the work does not run: {@code isDue() => scheduled == 1} (a run is pending). A requester
 * writes what makes the work due and then reads the flag; the run clears the flag and then reads whether the work
 * is due: Dekker's handshake on two volatiles, so at least one of the two sees the other's write.
 *
 * <p>Upkeep never stops for good ({@link UpkeepFailures}): work that throws is counted and the run still clears its flag
 * and looks again, a retry then waiting at least {@link #RETRY_MILLIS}; and a run that has not started
 * {@link #LOST_AFTER_NANOS} after its time (its thread died with it queued, and none could be started since) is taken
 * for lost, so that the next request schedules another. Work may run twice at once then: each is idempotent.
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
    /** When the pending run is due ({@link System#nanoTime}); written by the request that scheduled it. */
    private volatile long dueNanos;
    /** Set by a run whose work threw: the run it schedules waits at least {@link #RETRY_MILLIS}. */
    private volatile boolean lastRunFailed;
    private final long lostAfterNanos;

    /** Least wait before a failed run's work is tried again: a failure that repeats must not keep a thread busy. */
    static final long RETRY_MILLIS = 1_000;
    /** How late a pending run may be before it is taken for lost (its thread died with it queued). */
    static final long LOST_AFTER_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final VarHandle SCHEDULED;
    private static final VarHandle DUE_NANOS;

    static {
        try {
            SCHEDULED = MethodHandles.lookup().findVarHandle(DueTask.class, "scheduled", int.class);
            DUE_NANOS = MethodHandles.lookup().findVarHandle(DueTask.class, "dueNanos", long.class);
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
        this(scheduler, delayMillis, isDue, work, runOnRequesterIfUnscheduled, LOST_AFTER_NANOS);
    }

    /** As above, a pending run taken for lost {@code lostAfterNanos} after its time (tests lose one on purpose). */
    DueTask(BackgroundThread.Scheduler scheduler, LongSupplier delayMillis, BooleanSupplier isDue, Runnable work,
            boolean runOnRequesterIfUnscheduled, long lostAfterNanos) {
        this.lostAfterNanos = lostAfterNanos;
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
        if (isDue.getAsBoolean() && (lvScheduled() == 0 && casScheduled(0, 1) || isLost())) {
            schedule();
        }
    }

    /** Cold: whether the pending run is long overdue; if so, this caller takes it over (one of them, by a CAS). */
    private boolean isLost() {
        long due = dueNanos;
        return lvScheduled() == 1 && System.nanoTime() - due > lostAfterNanos
            && DUE_NANOS.compareAndSet(this, due, System.nanoTime());
    }

    private void schedule() {
        long delay = delayMillis.getAsLong();
        if (lastRunFailed) {
            delay = Math.max(delay, RETRY_MILLIS);
        }
        dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
        try {
            scheduler.schedule(run, delay);
        } catch (RuntimeException | Error e) {
            // No thread to run it (one could not be started): here, unless it just failed (it would fail again at
            // once, over and over); else the next request tries again.
            UpkeepFailures.failed(UpkeepFailures.Kind.THREAD_START, e);
            if (runOnRequesterIfUnscheduled && !lastRunFailed) {
                run();
            } else {
                svScheduled(0);
            }
        }
    }

    /** The pending run: does the work, then clears the flag and looks again (the handshake's read). */
    void run() {
        boolean failed = false;
        try {
            work.run();
        } catch (Throwable e) {
            failed = true;
            UpkeepFailures.failed(UpkeepFailures.Kind.BACKGROUND_TASK, e);
        }
        lastRunFailed = failed;
        svScheduled(0);
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
