package io.github.magalloc.core;

import java.security.AccessController;
import java.security.PrivilegedAction;

/**
 * The allocator's own threads ({@code magalloc-background}, {@code magalloc-arena-closes}): daemons that keep nothing of
 * the application thread that happens to start them. A new {@link Thread} would copy that thread's inheritable thread
 * locals, its context class loader, its thread group and (JDK 17 to 23) its access-control context, whose protection
 * domains name the class loaders of every class on its stack: a web application's loader, say, kept for the life of
 * the JVM by a thread that runs only the allocator's code. So the thread is made with no inherited thread locals, no
 * context class loader, in the JVM's top thread group, inside {@code doPrivileged} (the captured context then holds
 * only the allocator's own classes), at normal priority.
 */
final class DaemonThreads {
    private DaemonThreads() {
    }

    /** A daemon thread named {@code name} that runs {@code body}, not started (a {@code Cleaner} starts its own). */
    // AccessController is deprecated for removal from JDK 17; it is still the one way to keep JDK 17 to 23 from
    // capturing the calling thread's access-control context in the new thread, and on JDK 24+ it just runs the action.
    @SuppressWarnings("removal")
    static Thread newThread(String name, Runnable body) {
        return AccessController.doPrivileged(new NewThread(name, body));
    }

    /**
     * The action that makes the thread: a class of its own, not a lambda, so that {@code ClassesLoadedAhead} loads it
     * with the first pool; a lambda's class is spun at its first run, which may be a release on a virtual thread,
     * pinned to its carrier while it does.
     */
    static final class NewThread implements PrivilegedAction<Thread> {
        private final String name;
        private final Runnable body;

        NewThread(String name, Runnable body) {
            this.name = name;
            this.body = body;
        }

        @Override
        public Thread run() {
            Thread thread = new Thread(topThreadGroup(), body, name, 0, false);
            thread.setDaemon(true);
            thread.setPriority(Thread.NORM_PRIORITY);
            thread.setContextClassLoader(null);
            return thread;
        }
    }

    /** Starts {@link #newThread}; throws what {@link Thread#start()} throws, with no thread running. */
    static Thread start(String name, Runnable body) {
        Thread thread = newThread(name, body);
        thread.start();
        return thread;
    }

    /** The JVM's top thread group: an application's own group may be destroyed, and should not be kept either. */
    private static ThreadGroup topThreadGroup() {
        ThreadGroup group = Thread.currentThread().getThreadGroup();
        while (group.getParent() != null) {
            group = group.getParent();
        }
        return group;
    }
}
