package io.github.magalloc.core;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The one failure policy of the allocator's upkeep: the work it does for its pools beside allocations and releases
 * (the background threads' tasks, due tasks, decay ticks and owner tasks on event loops, work after a collection, the
 * start of its threads). Upkeep never fails an allocation or a release, and never stops for good: a failed step is
 * counted here and the work goes on at its next occasion (each caller says how). The first failure of each kind is
 * logged once through Netty's logger, with its stack, and later ones only counted: a failure that repeats would
 * otherwise log at every task. A logger that throws is ignored, so that the report cannot become a failure of its own.
 *
 * <p>One failure is not reported: a class that cannot be loaded ({@link LinkageError}) while magalloc's own class
 * loader no longer reads magalloc's class files. The application that loaded magalloc is undeployed (its loader
 * closed), and upkeep ends for good ({@link #classesGone}): the background threads drop their tasks, so that nothing
 * of magalloc's keeps the loader, and nothing logs for an application that is gone.
 */
final class UpkeepFailures {
    /** What failed. */
    enum Kind {
        BACKGROUND_TASK("a task of magalloc's background threads"),
        DECAY_TICK("an event loop's decay tick or owner task"),
        AFTER_COLLECTION("work after a garbage collection"),
        THREAD_START("the start of one of magalloc's threads");

        final String what;

        Kind(String what) {
            this.what = what;
        }
    }

    /** Reports a failure (once per kind); tests plant one that records or throws. */
    interface Reporter {
        void report(Kind kind, Throwable error);
    }

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(UpkeepFailures.class);
    private static final Reporter LOG = (kind, error) -> logger.warn("magalloc: " + kind.what + " failed; the work goes "
        + "on at its next occasion, and later failures of this kind are counted but not logged", error);

    private static final AtomicLongArray COUNTS = new AtomicLongArray(Kind.values().length);
    /** 1 once a kind's first failure was reported. */
    private static final AtomicIntegerArray REPORTED = new AtomicIntegerArray(Kind.values().length);
    private static volatile Reporter reporter = LOG;
    /** Set once magalloc's class files are gone (see the class comment); never cleared. */
    private static volatile boolean classesGone;

    private UpkeepFailures() {
    }

    /** Any thread, in a catch of upkeep work: counts the failure, and reports it if it is the first of its kind. */
    static void failed(Kind kind, Throwable error) {
        COUNTS.incrementAndGet(kind.ordinal());
        if (error instanceof LinkageError && ownClassFilesGone()) {
            classesGone = true;
            return;
        }
        if (REPORTED.get(kind.ordinal()) == 0 && REPORTED.compareAndSet(kind.ordinal(), 0, 1)) {
            try {
                reporter.report(kind, error);
            } catch (Throwable reportFailed) {
                // Nothing more to do: the failure is counted, and upkeep goes on.
            }
        }
    }

    /**
     * True once upkeep failed because magalloc's loader is closed: nothing of its can be loaded any more, and the
     * background threads end rather than keep the loader with tasks that would fail.
     */
    static boolean classesGone() {
        return classesGone;
    }

    /** Cold: whether the loader of magalloc's classes no longer finds this class's file (it was closed). */
    private static boolean ownClassFilesGone() {
        ClassLoader loader = UpkeepFailures.class.getClassLoader();
        return loader != null && loader.getResource(UpkeepFailures.class.getName().replace('.', '/') + ".class") == null;
    }

    /** Failures of {@code kind} so far. */
    static long count(Kind kind) {
        return COUNTS.get(kind.ordinal());
    }

    /** Tests: reports through {@code replacement} from now on, each kind's first failure again; returns the old. */
    static Reporter replaceReporter(Reporter replacement) {
        Reporter old = reporter;
        reporter = replacement;
        for (int i = 0; i < REPORTED.length(); i++) {
            REPORTED.set(i, 0);
        }
        return old;
    }
}
