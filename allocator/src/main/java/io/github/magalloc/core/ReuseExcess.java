package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Gives back what the {@link ReusePool} holds above its budget, a delay after it went above (protocol 3a (the reuse
 * pool's excess)). Traffic that comes in waves (requests in flight rising and falling every few tens of
 * milliseconds, as virtual threads do) empties more chunks than the budget at every ebb and needs them again at
 * the next flood: freed at once, they would go to the system and come back from it every wave. Kept up to the
 * pool's ceiling for a delay, they serve the next wave; once the waves stop, the excess goes back.
 *
 * <p>Invariant, whenever no purge runs: {@code pooledBytes > budget  =>  scheduled == 1} (a purge is pending).
 * Offers and the purge's end both write and then read ({@link #afterOffer}): Dekker's handshake on two volatiles.
 */
final class ReuseExcess {
    /** Runs a task once after a delay, on a thread of its own. */
    interface Scheduler {
        void schedule(Runnable task, long delayMillis);
    }

    /**
     * One daemon thread for all pools, started by the first excess and ended after a second with nothing to do:
     * no thread waits while no pool holds an excess, and none keeps the JVM from exiting.
     */
    static final Scheduler DAEMON_THREAD = (task, delayMillis) ->
        DaemonTimer.EXECUTOR.schedule(task, delayMillis, TimeUnit.MILLISECONDS);

    private final ReusePool reuse;
    private final Consumer<Slab> free;
    private final Scheduler scheduler;
    private final long delayMillis;
    /** The same task object every time: scheduling it makes no garbage. */
    private final Runnable purge = this::purge;
    /** 1 from the offer that asked for a purge until that purge has given the excess back, else 0. */
    private volatile int scheduled;

    private static final VarHandle SCHEDULED;

    static {
        try {
            SCHEDULED = MethodHandles.lookup().findVarHandle(ReuseExcess.class, "scheduled", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code free} gives a slab taken out of {@code reuse} back to the system. */
    ReuseExcess(ReusePool reuse, Consumer<Slab> free, Scheduler scheduler, long delayMillis) {
        this.reuse = reuse;
        this.free = free;
        this.scheduler = scheduler;
        this.delayMillis = delayMillis;
    }

    /**
     * Any thread, cold, after its offer to the pool succeeded (the offer's add to the pool's bytes is the write of
     * the handshake): asks for a purge if the pool is above its budget and none is pending.
     */
    void afterOffer() {
        if (reuse.pooledBytes() > reuse.budget() && lvScheduled() == 0 && casScheduled(0, 1)) {
            schedulePurge();
        }
    }

    private void schedulePurge() {
        try {
            scheduler.schedule(purge, delayMillis);
        } catch (RuntimeException | Error e) {
            // No thread to wait on (one could not be started): the pool keeps its budget, not a pending excess.
            purge();
        }
    }

    /** The pending purge: frees down to the budget, then clears the flag and looks again (the handshake's read). */
    void purge() {
        giveBackExcess();
        svScheduled(0);
        afterOffer();
    }

    /** Frees pooled slabs until the pool holds no more than its budget (or nothing a poll can take). */
    private void giveBackExcess() {
        Slab slab;
        while (reuse.pooledBytes() > reuse.budget() && (slab = reuse.pollAny()) != null) {
            free.accept(slab);
        }
    }

    /** True while a purge is pending; tests read it. */
    boolean isPurgePending() {
        return lvScheduled() != 0;
    }

    private int lvScheduled() {
        return scheduled;
    }

    private boolean casScheduled(int expect, int update) {
        return SCHEDULED.compareAndSet(this, expect, update);
    }

    /** Volatile, not a release store: it must not pass the pool's byte count read after it. */
    private void svScheduled(int value) {
        scheduled = value;
    }

    /** Holder of the shared thread, made at the first excess of any pool. */
    private static final class DaemonTimer {
        static final ScheduledThreadPoolExecutor EXECUTOR = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "magalloc-reuse-excess");
                thread.setDaemon(true);
                thread.setContextClassLoader(null); // it runs only our code; it must not keep an application's loader
                return thread;
            });
            // The one thread ends after a second idle (a pending purge keeps it) and starts again with the next.
            executor.setKeepAliveTime(1, TimeUnit.SECONDS);
            executor.allowCoreThreadTimeOut(true);
            return executor;
        }
    }
}
