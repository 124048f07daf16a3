package io.github.magalloc.core;

import java.lang.ref.Cleaner;

/**
 * Tasks run once the garbage collector found an object unreachable, on one daemon thread, {@code magalloc-sweeper},
 * shared by every allocator of the JVM and idle between collections: the sweeps of virtual threads' objects
 * (protocol 5a (virtual threads' objects)), and, where freed direct memory waits for the collector, the trim of the
 * C heap after it (protocol 3b (resident memory)). The thread starts when this class is initialized, and keeps
 * nothing of the thread that initializes it ({@link DaemonThreads}).
 */
final class AfterCollection {
    private static final Cleaner CLEANER = Cleaner.create(task -> DaemonThreads.newThread("magalloc-sweeper", task));

    private AfterCollection() {
    }

    /** Runs {@code task} once {@code watched} is unreachable; {@code task} must not reference {@code watched}. */
    static void register(Object watched, Runnable task) {
        CLEANER.register(watched, task);
    }

    /** Does nothing but initialize this class, which starts the thread. */
    static void start() {
    }
}
