package io.github.magalloc.core;

import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * A background thread shared by every pool of the JVM: it runs the work that must not run on the thread that made it
 * due (an event loop, a request's thread). Two instances: {@code magalloc-background} gives back what the reuse pools
 * hold above their budgets and trims the C allocator's heap; {@code magalloc-arena-closes} closes direct slabs'
 * arenas ({@link ArenaCloser}), whose handshakes must not delay the first. Each a daemon made by
 * {@link DaemonThreads} (it keeps nothing of the thread that starts it), started by the first task and ended after
 * {@link #KEEP_ALIVE_NANOS} with nothing to do, so no thread waits while nothing is due and none keeps the JVM from
 * exiting.
 *
 * <p>Invariant, under this object's lock: {@code !queue.isEmpty() => thread != null || a caller is starting one} (a
 * queued task has a thread to run it). {@link #schedule} queues, then starts a thread outside the lock if none runs
 * (starting a thread may block, and callers hold locks of their own); a thread that cannot be started takes its
 * caller's task out again, so the caller sees the exception and nothing waits for a thread that never comes. Several
 * callers may start one at once: the first to reach the queue runs it, the others end. The running thread clears
 * {@link #thread} only under the lock, when the queue is empty, or when it dies, and then starts a successor if tasks
 * are left. A task that throws is an upkeep failure ({@link UpkeepFailures}): counted, and the tasks behind it run.
 * Once magalloc's classes are gone ({@link UpkeepFailures#classesGone}: its application was undeployed) the thread
 * drops its tasks and ends, and nothing is queued again: tasks that cannot load their classes must not keep the
 * loader.
 */
final class BackgroundThread {
    /** Runs a task once after a delay, on a thread of its own; throws when no thread can run it. */
    interface Scheduler {
        void schedule(Runnable task, long delayMillis);
    }

    /** Starts a thread named {@code name} running {@code body}; throws when it cannot. */
    interface Starter {
        Thread start(String name, Runnable body);
    }

    static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * The JVM's one instance, made with this class (a pool's construction initializes it) rather than by the first
     * task: tasks come from releases on any thread, and virtual threads that raced to initialize a holder class would
     * be pinned while one of them ran its initializer. The object alone costs nothing; its thread starts with the first
     * task.
     */
    private static final BackgroundThread SHARED = new BackgroundThread("magalloc-background", DaemonThreads::start);

    /** Schedules on the shared thread. */
    static final Scheduler SCHEDULER = SHARED::schedule;

    /**
     * A thread of its own for the closes of direct slabs' arenas (a close is a handshake with every thread of the JVM,
     * slow while many threads run): a batch of them must not delay the reuse pools' purges and the trims behind it.
     */
    private static final BackgroundThread ARENA_CLOSES = new BackgroundThread("magalloc-arena-closes",
        DaemonThreads::start);

    /** Schedules on the arena closes' thread. */
    static final Scheduler ARENA_CLOSES_SCHEDULER = ARENA_CLOSES::schedule;

    private final String name;
    private final Starter starter;
    /**
     * The thread's body, made with this object (for the JVM's two, with the class) rather than at the first schedule:
     * a method reference's class is made at its first run, and the first schedule is a release's, on any thread.
     */
    private final Runnable body = this::runTasks;
    /** Tasks by due time, then by order of scheduling. Guarded by this object's lock. */
    private final PriorityQueue<Timed> queue = new PriorityQueue<>();
    /** The thread running the tasks, or null while none does. Guarded by this object's lock. */
    private Thread thread;
    private long scheduled;

    BackgroundThread(String name, Starter starter) {
        this.name = name;
        this.starter = starter;
    }

    /** Queues {@code task} to run {@code delayMillis} from now; throws, queuing nothing, if no thread can be started. */
    void schedule(Runnable task, long delayMillis) {
        scheduleAt(task, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMillis)));
    }

    /** As {@link #schedule}, due at {@code dueNanos} ({@link System#nanoTime}); tests give several one time base. */
    void scheduleAt(Runnable task, long dueNanos) {
        if (UpkeepFailures.classesGone()) {
            return; // the application is undeployed: nothing could run it
        }
        Timed timed = new Timed(dueNanos, 0, task);
        boolean start;
        synchronized (this) {
            timed.order = scheduled++;
            queue.add(timed);
            start = thread == null;
            notifyAll();
        }
        if (start) {
            try {
                starter.start(name, body);
            } catch (RuntimeException | Error refused) {
                synchronized (this) {
                    if (thread == null) {
                        queue.remove(timed); // nobody will run it: the caller hears of it
                        throw refused;
                    }
                }
                // Another thread runs the queue meanwhile: the task will run.
            }
        }
    }

    /** Tasks queued and not yet started; tests read it. */
    synchronized int queued() {
        return queue.size();
    }

    /** The thread running the tasks, or null; tests read it. */
    synchronized Thread thread() {
        return thread;
    }

    private void runTasks() {
        synchronized (this) {
            if (thread != null) {
                return; // another caller's thread runs the queue
            }
            thread = Thread.currentThread();
        }
        boolean idle = false;
        try {
            Runnable task;
            while ((task = nextTask()) != null) {
                try {
                    task.run();
                } catch (Throwable e) {
                    // Every task is the allocator's own and handles its failures; one that still throws must not
                    // stop the tasks behind it.
                    UpkeepFailures.failed(UpkeepFailures.Kind.BACKGROUND_TASK, e);
                }
            }
            idle = true;
        } finally {
            if (!idle) {
                startSuccessorIfTasksLeft();
            }
        }
    }

    /** Cold: the running thread dies (an Error in the loop itself): another runs the tasks left, if any. */
    private void startSuccessorIfTasksLeft() {
        boolean tasksLeft;
        synchronized (this) {
            if (thread == Thread.currentThread()) {
                thread = null;
            }
            tasksLeft = thread == null && !queue.isEmpty();
        }
        if (tasksLeft) {
            try {
                starter.start(name, body);
            } catch (Throwable e) {
                // The next schedule starts one; the tasks wait for it.
                UpkeepFailures.failed(UpkeepFailures.Kind.THREAD_START, e);
            }
        }
    }

    /** The next task once it is due, or null (with {@link #thread} cleared) after a keep-alive with nothing queued. */
    private synchronized Runnable nextTask() {
        long idleSince = System.nanoTime();
        while (true) {
            if (UpkeepFailures.classesGone()) {
                queue.clear();
                thread = null;
                return null;
            }
            Timed head = queue.peek();
            long now = System.nanoTime();
            long waitNanos;
            if (head == null) {
                waitNanos = idleSince + KEEP_ALIVE_NANOS - now;
                if (waitNanos <= 0) {
                    thread = null;
                    return null;
                }
            } else {
                waitNanos = head.dueNanos - now;
                if (waitNanos <= 0) {
                    return queue.poll().task;
                }
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, waitNanos);
            } catch (InterruptedException e) {
                // Nobody but the JVM's own shutdown has reason to interrupt this thread; the queue decides.
            }
        }
    }

    /** A queued task. Not private: {@link ClassesLoadedAhead} loads it (the first schedule is a release's). */
    static final class Timed implements Comparable<Timed> {
        final long dueNanos;
        /** Its place in the order of scheduling, set under the queue's lock before it is queued. */
        long order;
        final Runnable task;

        Timed(long dueNanos, long order, Runnable task) {
            this.dueNanos = dueNanos;
            this.order = order;
            this.task = task;
        }

        @Override
        public int compareTo(Timed other) {
            long byDue = dueNanos - other.dueNanos;
            return byDue != 0 ? (byDue < 0 ? -1 : 1) : Long.compare(order, other.order);
        }
    }
}
