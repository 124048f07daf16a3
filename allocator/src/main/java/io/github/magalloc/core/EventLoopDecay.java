package io.github.magalloc.core;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;

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
 * on its own slow paths from then on ({@link SlowPathDecay}). So a maintenance task never fails an allocation or a
 * release, and memory still comes back.
 *
 * <p><b>Nothing kept alive.</b> The loop's queue holds the periodic task for as long as the loop lives, so the task
 * holds this decay, and with it the magazine and its pool, weakly ({@link WeakTick}): a dropped allocator's magazine
 * is collected while the loop runs on, and its next tick cancels itself.
 */
final class EventLoopDecay extends SlowPathDecay {
    private final EventExecutor loop;
    private final long periodMillis;
    /** The same task object every time: asking for a collect makes no garbage. */
    private final Runnable collect = this::collect;
    /** Owner only: the periodic tick, or {@link #STOPPED}. */
    private Future<?> ticks = STOPPED;
    /**
     * Set by the first refusal, on any thread, never cleared: from then on the executor is asked for nothing and the
     * owner runs the ticks ({@link SlowPathDecay}).
     */
    private volatile boolean executorRefused;
    /**
     * 1 from a request that queued the collect task until that task starts, else 0: at most one collect waits in
     * the loop's queue, however many releases ask while the loop is busy. A request that finds 1 needs no task of
     * its own: its read came before the task's clearing store, which comes before the task's look at the magazine.
     * A refused request leaves it at 1: no later request asks the executor again.
     */
    private volatile int collectQueued;

    private static final VarHandle COLLECT_QUEUED;

    static {
        try {
            COLLECT_QUEUED = MethodHandles.lookup().findVarHandle(EventLoopDecay.class, "collectQueued", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What {@link #ticks} holds while no tick is scheduled. */
    private static final Future<?> STOPPED = ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);

    EventLoopDecay(ThreadMagazine magazine, EventExecutor loop, long periodMillis) {
        super(magazine, periodMillis);
        this.loop = loop;
        this.periodMillis = periodMillis;
    }

    @Override
    void onChunkTaken() {
        if (lvExecutorRefused()) {
            super.onChunkTaken();
        } else if (ticks == STOPPED) {
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
            ticks = tick.future = loop.scheduleWithFixedDelay(tick, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException | Error refused) {
            svExecutorRefused();
            magazine.requestOwnerWork();
            super.onChunkTaken();
        }
    }

    /** Owner, once the executor refused: the loop's ticks (if any still run) stop, and the owner's slow paths tick. */
    @Override
    void onSlowPath() {
        stopLoopTicks();
        super.onSlowPath();
    }

    @Override
    boolean ticksOnSlowPaths() {
        return lvExecutorRefused();
    }

    /** While the executor takes tasks. */
    @Override
    boolean runsWhenIdle() {
        return !lvExecutorRefused();
    }

    @Override
    void requestCollect() {
        if (lvExecutorRefused() || lvCollectQueued() != 0 || !casCollectQueued(0, 1)) {
            return;
        }
        try {
            loop.execute(collect);
        } catch (RuntimeException | Error refused) {
            // The owner collects at its next large allocation, and ticks on its slow paths from now on.
            svExecutorRefused();
            magazine.requestOwnerWork();
        }
    }

    /**
     * Owner, on the loop: one tick; stops the ticks when the magazine holds nothing or is not this thread's. A tick that
     * finds the magazine holding nothing, or idle for the whole period, unpins it from its thread (the thread's link
     * becomes weak until the next allocation): so the magazine of an allocator nobody references any more, which
     * allocates nothing, is collectable a tick or two later, whatever it holds.
     */
    private void tick() {
        if (!magazine.isOwnedByCurrentThread()) {
            stopLoopTicks();
            return;
        }
        boolean holdsChunks = magazine.decayTick();
        if (!holdsChunks || magazine.wasIdleLastPeriod()) {
            magazine.unpinFromThread();
        }
        if (!holdsChunks) {
            stopLoopTicks();
        }
    }

    private void stopLoopTicks() {
        if (ticks != STOPPED) {
            ticks.cancel(false);
            ticks = STOPPED;
        }
    }

    private void collect() {
        svCollectQueued(0);
        if (magazine.isOwnedByCurrentThread()) {
            magazine.releaseLargeSparesIfEmptied();
        }
    }

    /**
     * The periodic task, as the loop's queue holds it: it reaches the decay through a weak reference, so a queued tick
     * keeps no magazine and no pool alive. Once the decay is collected (its allocator was dropped), the next run
     * cancels the task. Its future is set on the loop's own thread before the first run, which comes a period later
     * on that thread.
     */
    private static final class WeakTick implements Runnable {
        private final WeakReference<EventLoopDecay> decay;
        Future<?> future;

        WeakTick(EventLoopDecay decay) {
            this.decay = new WeakReference<>(decay);
        }

        @Override
        public void run() {
            EventLoopDecay live = decay.get();
            if (live != null) {
                live.tick();
            } else if (future != null) {
                future.cancel(false);
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

    private int lvCollectQueued() {
        return collectQueued;
    }

    private boolean casCollectQueued(int expect, int update) {
        return COLLECT_QUEUED.compareAndSet(this, expect, update);
    }

    /** Volatile: ordered before the task's read of the magazine's flag (see {@link #collectQueued}). */
    private void svCollectQueued(int value) {
        collectQueued = value;
    }
}
