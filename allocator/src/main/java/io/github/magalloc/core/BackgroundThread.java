package io.github.magalloc.core;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The allocator's one background thread, {@code magalloc-background}, shared by every pool of the JVM: it runs the
 * work that must not run on the thread that made it due (an event loop, a request's thread), such as giving back
 * what the reuse pool holds above its budget and trimming the C allocator's heap. A daemon, started by the first
 * task and ended after a second with nothing to do, so no thread waits while nothing is due and none keeps the JVM
 * from exiting.
 */
final class BackgroundThread {
    /** Runs a task once after a delay, on a thread of its own. */
    interface Scheduler {
        void schedule(Runnable task, long delayMillis);
    }

    /** Schedules on the shared daemon thread. */
    static final Scheduler SCHEDULER = (task, delayMillis) ->
        Executor.INSTANCE.schedule(task, delayMillis, TimeUnit.MILLISECONDS);

    private BackgroundThread() {
    }

    /** Holder of the executor, made at the first task of any pool. */
    private static final class Executor {
        static final ScheduledThreadPoolExecutor INSTANCE = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "magalloc-background");
                thread.setDaemon(true);
                thread.setContextClassLoader(null); // it runs only our code; it must not keep an application's loader
                return thread;
            });
            // The one thread ends after a second idle (a pending task keeps it) and starts again with the next.
            executor.setKeepAliveTime(1, TimeUnit.SECONDS);
            executor.allowCoreThreadTimeOut(true);
            return executor;
        }
    }
}
