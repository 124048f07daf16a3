package io.github.magalloc.core;

import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Tasks run once the garbage collector found an object unreachable, on one daemon thread shared by every allocator of
 * the JVM and idle between collections: the sweeps of virtual threads' objects (protocol 5a (virtual threads'
 * objects)), the freeing of a dropped pool's direct slabs (protocol 8 (dropped allocators)) and, where freed direct
 * memory waits for the collector, the trim of the C heap after it (protocol 3b (resident memory)).
 *
 * <p>The thread is the JDK's own for a {@link Cleaner} made without a thread factory: it keeps no access-control
 * context, context class loader or thread group of whoever made it, so it keeps no application's class loader. It is
 * made at the first registration; if it cannot be (no thread can be started), the registration waits, holding its
 * object weakly, and is made at the next one that can, or its task runs at once if its object is gone by then: so
 * nothing here makes a pool unusable, and nothing is lost. A task that throws is an upkeep failure
 * ({@link UpkeepFailures}; the JDK's cleaner would drop it silently).
 */
final class AfterCollection {
    /** Makes the cleaner; tests plant one that fails. */
    static volatile Supplier<Cleaner> cleanerFactory = Cleaner::create;
    /** The cleaner, once made. */
    private static volatile Cleaner cleaner;
    /** Registrations that waited for a cleaner; guarded by the class's lock. */
    private static final List<Waiting> WAITING = new ArrayList<>();

    private AfterCollection() {
    }

    /** Runs {@code task} once {@code watched} is unreachable; {@code task} must not reference {@code watched}. */
    static void register(Object watched, Runnable task) {
        Cleaner made = cleaner();
        if (made == null) {
            synchronized (AfterCollection.class) {
                WAITING.add(new Waiting(watched, new Reported(task)));
            }
            return;
        }
        made.register(watched, new Reported(task));
    }

    /**
     * Runs {@code task}, made of the JDK's classes only ({@link JdkOnlyTasks}), once {@code watched} is unreachable:
     * the registration of a pool that may outlive magalloc's class loader (an undeployed application's) keeps nothing
     * of it. Not wrapped for failures (a wrapper would be magalloc's class): the JDK's cleaner drops them.
     */
    static void registerJdkOnly(Object watched, Runnable task) {
        Cleaner made = cleaner();
        if (made == null) {
            synchronized (AfterCollection.class) {
                WAITING.add(new Waiting(watched, task));
            }
            return;
        }
        made.register(watched, task);
    }

    /** The cleaner, made now if it was not (with the registrations that waited for it); null if it cannot be. */
    private static Cleaner cleaner() {
        Cleaner made = cleaner;
        return made != null ? made : makeCleaner();
    }

    /** Cold: the first registration, or one after the cleaner's thread could not be started. */
    private static synchronized Cleaner makeCleaner() {
        if (cleaner != null) {
            return cleaner;
        }
        Cleaner made;
        try {
            made = cleanerFactory.get();
        } catch (Throwable e) {
            UpkeepFailures.failed(UpkeepFailures.Kind.THREAD_START, e);
            return null;
        }
        for (Waiting waiting : WAITING) {
            Object watched = waiting.get();
            if (watched == null) {
                waiting.task.run(); // already unreachable: its task is due now
            } else {
                made.register(watched, waiting.task);
            }
        }
        WAITING.clear();
        cleaner = made;
        return made;
    }

    /** Tests: forgets the cleaner (its thread and registrations go on), so that the next registration makes one. */
    static synchronized void forgetCleanerForTests() {
        cleaner = null;
    }

    /** Makes the cleaner now, if it can: the allocator's first pool calls it, rather than a virtual thread's release. */
    static void start() {
        cleaner();
    }

    /** A registration waiting for a cleaner: its object weakly (waiting keeps nothing alive), its task as registered. */
    static final class Waiting extends WeakReference<Object> {
        final Runnable task;

        Waiting(Object watched, Runnable task) {
            super(watched);
            this.task = task;
        }
    }

    /** A task whose failure is counted and reported rather than dropped. */
    static final class Reported implements Runnable {
        private final Runnable task;

        Reported(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            try {
                task.run();
            } catch (Throwable e) {
                UpkeepFailures.failed(UpkeepFailures.Kind.AFTER_COLLECTION, e);
            }
        }
    }
}
