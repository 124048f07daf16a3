package io.github.magalloc.core;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;
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
 */
final class EventLoopDecay extends MagazineDecay {
    private final ThreadMagazine magazine;
    private final EventExecutor loop;
    private final long periodMillis;
    /** The same two task objects every time: scheduling them makes no garbage per tick. */
    private final Runnable tick = this::tick;
    private final Runnable collect = this::collect;
    /** Owner only: the periodic tick, or {@link #STOPPED}. */
    private Future<?> ticks = STOPPED;
    /**
     * 1 from a request that queued the collect task until that task starts, else 0: at most one collect waits in
     * the loop's queue, however many releases ask while the loop is busy. A request that finds 1 needs no task of
     * its own: its read came before the task's clearing store, which comes before the task's look at the magazine.
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
        this.magazine = magazine;
        this.loop = loop;
        this.periodMillis = periodMillis;
    }

    @Override
    void onChunkTaken() {
        if (ticks == STOPPED) {
            start();
        }
    }

    /** Cold: schedules the ticks; a loop that is shutting down refuses, and its end hands the magazine over. */
    private void start() {
        try {
            // Fixed delay, not fixed rate: a loop that was busy past a due tick runs it once, not once per missed
            // period back to back, so two ticks are always at least a period apart (the rule of the marks).
            ticks = loop.scheduleWithFixedDelay(tick, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            ticks = STOPPED;
        }
    }

    @Override
    void requestCollect() {
        if (lvCollectQueued() != 0 || !casCollectQueued(0, 1)) {
            return;
        }
        try {
            loop.execute(collect);
        } catch (RejectedExecutionException e) {
            // The loop is shutting down: its thread's end hands the magazine over, large chunks included.
        }
    }

    private void tick() {
        if (!magazine.isOwnedByCurrentThread() || !magazine.decayTick()) {
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
