package io.github.magalloc.core;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.ThreadExecutorMap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;

/**
 * Who runs a thread magazine's decay ticks (protocol 7 (decay)): its thread's event loop ({@link OnEventLoop}),
 * the owner itself on its slow paths ({@link OnSlowPaths}: a thread that runs no executor, or whose executor
 * refuses tasks), or nobody ({@link None}: the period is 0). The magazine calls every method without knowing which
 * it has; none of them throws.
 */
abstract class MagazineDecay {
    static final MagazineDecay NONE = new None();

    /**
     * The decay of a magazine that the calling thread is creating for itself: ticks on the calling thread's event
     * loop if it runs one (a task scheduled there runs on this very thread), else on the thread's own slow paths.
     */
    static MagazineDecay forCurrentThread(Target magazine, long periodMillis) {
        if (periodMillis <= 0) {
            return NONE;
        }
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        return loop != null && runsOnCurrentThread(loop) ? new OnEventLoop(magazine, loop, periodMillis)
            : new OnSlowPaths(magazine, periodMillis);
    }

    /** Whether {@code loop} runs its tasks on the calling thread; an executor that throws here is trusted with none. */
    private static boolean runsOnCurrentThread(EventExecutor loop) {
        try {
            return loop.inEventLoop();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Owner, cold: a chunk came into the magazine (from the reuse pool or the system); stopped ticks start again. */
    abstract void onChunkTaken();

    /** Owner, cold: a refill or a large allocation, while {@link #ticksOnSlowPaths()}; a tick due runs here. */
    abstract void onSlowPath();

    /** Owner: whether the ticks run on the owner's slow paths now ({@link #onSlowPath}), no executor running them. */
    abstract boolean ticksOnSlowPaths();

    /**
     * Any thread, after setting the reason in the magazine: asks the owner's event loop to run the owner's requested
     * work (a large chunk a release emptied, a give-back on a shortage) as a task now; elsewhere nothing, as the
     * owner looks at its next slow path.
     */
    abstract void askLoopForOwnerWork();

    /**
     * The magazine a decay ticks for (a {@link ThreadMagazine}): every call but {@link #requestOwnerWork} comes from
     * its owner thread, on a slow path or a task of its event loop.
     */
    interface Target {
        /** One tick of the magazine's lists; returns whether it still holds chunks (else ticks may stop). */
        boolean decayTick();

        /** Whether the calling thread owns it and it has not ended. */
        boolean isOwnedByCurrentThread();

        /** Gives back the large chunks' spares if a release emptied one. */
        void releaseLargeSparesIfEmptied();

        /** On the owner's loop: the work other threads asked for, if the loop's thread still owns the magazine. */
        void doOwnerWork();

        /** Any thread: the owner looks at what changed (ticks moved to its slow paths) at its next slow path. */
        void requestOwnerWork();
    }

    /** No ticks (the period is 0): memory goes back at refills after {@code trim()} and when the thread ends. */
    static final class None extends MagazineDecay {
        @Override
        void onChunkTaken() {
        }

        @Override
        void onSlowPath() {
        }

        @Override
        void askLoopForOwnerWork() {
        }

        @Override
        boolean ticksOnSlowPaths() {
            return false;
        }
    }

    /**
     * Decay ticks (protocol 7 (decay)) that the owner runs itself, on its slow paths (a refill, a large allocation),
     * once a period has passed since the last: for a thread magazine whose thread runs no executor (a plain thread that
     * opted in) or whose executor refuses tasks (a harness executor that throws from {@code execute} and {@code
     * schedule}, a custom executor that is closed). Nothing is asked of any executor, so nothing can be refused, and
     * nothing is added to the fast path. The clock is read on a slow path, not on every one: after a read that finds
     * no tick due, the next 1, 3, 7, ... up to {@value #MAX_CLOCK_SKIP} slow paths skip it (a busy harness thread
     * refills millions of times a second, and a clock read is a good part of a refill).
     *
     * <pre>
     *   two ticks are at least periodNanos apart          (the rule of the marks, as on an event loop)
     *   a tick due runs at most MAX_CLOCK_SKIP slow paths late
     *   holdsChunks == false  =>  the magazine held no chunk at the last tick, and none was taken since
     * </pre>
     * What it cannot do: a thread that stops allocating, or that only reuses segments of its current chunks, reaches no
     * slow path, so its magazine keeps what it holds until {@code trim()} or the thread's end.
     */
    static class OnSlowPaths extends MagazineDecay {
        /** The most slow paths that pass between two clock reads. */
        static final int MAX_CLOCK_SKIP = 63;
        final Target magazine;
        private final long periodNanos;
        /** Owner only: whether ticks run (the magazine held a chunk at the last tick, or took one since). */
        private boolean holdsChunks;
        /** Owner only: when the next tick is due ({@link System#nanoTime()}). */
        private long nextTickNanos;
        /** Owner only: slow paths left before the next clock read. */
        private int slowPathsBeforeClockRead;
        /** Owner only: the skip set by the last read that found no tick due: 0, 1, 3, ... MAX_CLOCK_SKIP. */
        private int clockSkip;

        OnSlowPaths(Target magazine, long periodMillis) {
            this.magazine = magazine;
            this.periodNanos = periodMillis * 1_000_000;
        }

        @Override
        void onChunkTaken() {
            if (!holdsChunks) {
                holdsChunks = true;
                nextTickNanos = System.nanoTime() + periodNanos;
                slowPathsBeforeClockRead = 0;
                clockSkip = 0;
            }
        }

        @Override
        void onSlowPath() {
            if (holdsChunks) {
                if (slowPathsBeforeClockRead > 0) {
                    slowPathsBeforeClockRead--;
                } else {
                    tickIfDue();
                }
            }
        }

        /** Reads the clock: a tick if one is due, else the next read waits twice as many slow paths as the last. */
        private void tickIfDue() {
            long now = System.nanoTime();
            if (now - nextTickNanos >= 0) {
                nextTickNanos = now + periodNanos;
                clockSkip = 0;
                holdsChunks = magazine.decayTick();
            } else {
                clockSkip = Math.min(2 * clockSkip + 1, MAX_CLOCK_SKIP);
                slowPathsBeforeClockRead = clockSkip;
            }
        }

        /** Nothing to ask: the owner looks at its next refill or large allocation, a slow path. */
        @Override
        void askLoopForOwnerWork() {
        }

        @Override
        boolean ticksOnSlowPaths() {
            return true;
        }
    }

    /**
     * The decay ticks of an event loop's magazine, run as tasks of that event loop (protocol 7 (decay)). A task of the
     * loop runs on the loop's thread, the magazine's owner, between the loop's other tasks: so a tick touches the
     * magazine's lists with no lock and no atomics, exactly like an allocation, and can never run while the owner
     * allocates or releases. Nothing is added to the owner's allocation or release.
     *
     * <p>Each task checks that it runs on the owner of a magazine that has not ended: an executor may run tasks on a
     * new thread after its first one ended (Netty's {@code GlobalEventExecutor} does), and a magazine ends when its
     * thread detaches. Thread ids are never reused, so the check is exact.
     *
     * <p>Ticks run while the magazine holds a chunk: the tick that finds it holding none stops them, and the next
     * chunk it takes starts them again. An idle loop whose magazine holds nothing is not woken.
     *
     * <p><b>An executor that refuses.</b> Any exception from {@code scheduleWithFixedDelay} or {@code execute} (a loop
     * shutting down, a harness executor that throws {@code UnsupportedOperationException}, a closed custom executor's
     * {@code IllegalStateException}) is a refusal: nothing is asked of the executor again, and the owner runs the ticks
     * on its own slow paths from then on ({@link OnSlowPaths}). So a maintenance task never fails an allocation or a
     * release, and memory still comes back.
     *
     * <p><b>Nothing kept alive.</b> The loop's queue holds the periodic task for as long as the loop lives, so the task
     * holds this decay, and with it the magazine and its pool, weakly ({@link WeakTick}): a dropped allocator's
     * magazine is collected while the loop runs on, and its next tick cancels itself.
     */
    static final class OnEventLoop extends OnSlowPaths {
        private final EventExecutor loop;
        private final long periodMillis;
        /** The same task object every time: asking for the owner's work makes no garbage. */
        private final Runnable ownerWork = this::ownerWork;
        /**
         * Owner only: the periodic tick, or null while none is scheduled. (Not a sentinel future of Netty's: making one
         * initializes a class of Netty's whose static exception would keep the stack of magalloc's classes.)
         */
        private Future<?> ticks;
        /**
         * Set by the first refusal, on any thread, never cleared: from then on the executor is asked for nothing and
         * the owner runs the ticks ({@link OnSlowPaths}).
         */
        private volatile boolean executorRefused;
        /**
         * 1 from a request that queued the owner-work task until that task starts, else 0: at most one such task waits
         * in the loop's queue, however many threads ask while the loop is busy. A request that finds 1 needs no task
         * of its own: its read came before the task's clearing store, which comes before the task's look at the
         * magazine. A refused request leaves it at 1: no later request asks the executor again.
         */
        private volatile int ownerWorkQueued;

        private static final VarHandle OWNER_WORK_QUEUED;

        static {
            try {
                OWNER_WORK_QUEUED = MethodHandles.lookup().findVarHandle(OnEventLoop.class, "ownerWorkQueued",
                    int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }


        OnEventLoop(Target magazine, EventExecutor loop, long periodMillis) {
            super(magazine, periodMillis);
            this.loop = loop;
            this.periodMillis = periodMillis;
        }

        @Override
        void onChunkTaken() {
            if (lvExecutorRefused()) {
                super.onChunkTaken();
            } else if (ticks == null) {
                start();
            }
        }

        /**
         * Cold: schedules the ticks. A refusal hands them to the owner's slow paths; a loop that is shutting down
         * refuses too, and its thread's end then hands the magazine over (protocol 4 (ended threads)).
         */
        private void start() {
            WeakTick tick = new WeakTick(this);
            try {
                // Fixed delay, not fixed rate: a loop that was busy past a due tick runs it once, not once per missed
                // period back to back, so two ticks are always at least a period apart (the rule of the marks).
                ticks = tick.future =
                    loop.scheduleWithFixedDelay(tick, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
            } catch (RuntimeException | Error refused) {
                svExecutorRefused();
                magazine.requestOwnerWork();
                super.onChunkTaken();
            }
        }

        /**
         * Owner, once the executor refused: the loop's ticks, if they ran, stop and hand over to the owner's slow paths,
         * which tick from a period later (the magazine holds chunks: the loop's ticks ran).
         */
        @Override
        void onSlowPath() {
            if (ticks != null) {
                stopLoopTicks();
                super.onChunkTaken();
            }
            super.onSlowPath();
        }

        @Override
        boolean ticksOnSlowPaths() {
            return lvExecutorRefused();
        }

        @Override
        void askLoopForOwnerWork() {
            if (lvExecutorRefused() || lvOwnerWorkQueued() != 0 || !casOwnerWorkQueued(0, 1)) {
                return;
            }
            try {
                loop.execute(ownerWork);
            } catch (RuntimeException | Error refused) {
                // The owner does the work at its next slow path, and ticks there from now on.
                svExecutorRefused();
                magazine.requestOwnerWork();
            }
        }

        /** Owner, on the loop: one tick; stops the ticks when the magazine holds nothing or is not this thread's. */
        private void tick() {
            if (!magazine.isOwnedByCurrentThread()) {
                stopLoopTicks();
                return;
            }
            if (!magazine.decayTick()) {
                stopLoopTicks();
            }
        }

        private void stopLoopTicks() {
            if (ticks != null) {
                ticks.cancel(false);
                ticks = null;
            }
        }

        private void ownerWork() {
            svOwnerWorkQueued(0);
            try {
                magazine.doOwnerWork();
            } catch (Throwable e) {
                UpkeepFailures.failed(UpkeepFailures.Kind.DECAY_TICK, e); // asked again at the next request or tick
            }
        }

        /**
         * The periodic task, as the loop's queue holds it: it reaches the decay through a weak reference, so a queued
         * tick keeps no magazine and no pool alive. Once the decay is collected (its allocator was dropped), the next
         * run cancels the task. Its future is set on the loop's own thread before the first run, which comes a period
         * later on that thread.
         */
        private static final class WeakTick implements Runnable {
            private final WeakReference<OnEventLoop> decay;
            Future<?> future;

            WeakTick(OnEventLoop decay) {
                this.decay = new WeakReference<>(decay);
            }

            /**
             * A tick that throws is counted and the next one runs a period later: an exception escaping here would
             * end the loop's periodic task, and nothing would start it again while the magazine holds chunks.
             */
            @Override
            public void run() {
                OnEventLoop live = decay.get();
                if (live == null) {
                    if (future != null) {
                        future.cancel(false);
                    }
                    return;
                }
                try {
                    live.tick();
                } catch (Throwable e) {
                    UpkeepFailures.failed(UpkeepFailures.Kind.DECAY_TICK, e);
                }
            }
        }

        private boolean lvExecutorRefused() {
            return executorRefused;
        }

        /** Volatile: a releaser's refusal reaches the owner, which looks when it sees its magazine's request. */
        private void svExecutorRefused() {
            executorRefused = true;
        }

        private int lvOwnerWorkQueued() {
            return ownerWorkQueued;
        }

        private boolean casOwnerWorkQueued(int expect, int update) {
            return OWNER_WORK_QUEUED.compareAndSet(this, expect, update);
        }

        /** Volatile: ordered before the task's reads of the magazine's requests (see {@link #ownerWorkQueued}). */
        private void svOwnerWorkQueued(int value) {
            ownerWorkQueued = value;
        }
    }
}
