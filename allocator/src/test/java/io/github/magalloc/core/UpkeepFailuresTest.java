package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Upkeep cannot die quietly ({@link UpkeepFailures}): each failure is planted (a task or a reporter that throws, a
 * decay tick that throws, an executor that refuses a task after the ticks were scheduled, a thread that cannot start)
 * and the work goes on: memory still comes back, and each kind of failure is reported once. Nothing is timed; a wait
 * is for something the code must eventually do, bounded only so that a bug fails instead of hanging.
 */
@Execution(ExecutionMode.SAME_THREAD) // the reporter and the cleaner's factory are the JVM's
class UpkeepFailuresTest {
    private final List<UpkeepFailures.Kind> reported = new ArrayList<>();
    private UpkeepFailures.Reporter previous;

    @BeforeEach
    void recordReports() {
        previous = UpkeepFailures.replaceReporter((kind, error) -> {
            synchronized (reported) {
                reported.add(kind);
            }
            throw new IllegalStateException("a reporter (a logger) that throws on purpose");
        });
    }

    @AfterEach
    void restoreReporter() {
        UpkeepFailures.replaceReporter(previous);
    }

    @Test
    void failingTasksAreReportedOnceAndAThrowingReporterStopsNothing() throws Exception {
        BackgroundThread background = new BackgroundThread("test-background", DaemonThreads::start);
        long before = UpkeepFailures.count(UpkeepFailures.Kind.BACKGROUND_TASK);
        CountDownLatch after = new CountDownLatch(1);
        for (int i = 0; i < 3; i++) {
            background.schedule(() -> {
                throw new IllegalStateException("a task that fails on purpose");
            }, 0);
        }
        background.schedule(after::countDown, 10);
        assertThat(after.await(10, TimeUnit.SECONDS)).as("the task behind three failures ran").isTrue();
        assertThat(UpkeepFailures.count(UpkeepFailures.Kind.BACKGROUND_TASK) - before).isEqualTo(3);
        assertThat(reported).containsExactly(UpkeepFailures.Kind.BACKGROUND_TASK);
    }

    /** Work that throws is tried again (a retry's wait later), and the due flag is never left set without a run. */
    @Test
    void aDueTaskWhoseWorkThrowsIsTriedAgain() throws Exception {
        BackgroundThread background = new BackgroundThread("test-background", DaemonThreads::start);
        AtomicInteger runs = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        DueTask task = new DueTask(background::schedule, () -> 0, () -> !done.get(), () -> {
            if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("work that fails once on purpose");
            }
            done.set(true);
        }, false);
        task.request();
        assertThat(eventually(done::get)).as("the work done by a second run").isTrue();
        assertThat(eventually(() -> !task.isPending())).isTrue();
        assertThat(runs).hasValue(2);
    }

    /** A run its scheduler lost (its thread died with it queued) is taken over by a request once long overdue. */
    @Test
    void aLostRunIsScheduledAgain() {
        List<Runnable> kept = new ArrayList<>();
        AtomicInteger offers = new AtomicInteger();
        BackgroundThread.Scheduler losing = (run, delay) -> {
            if (offers.incrementAndGet() > 1) {
                kept.add(run);
            } // the first is lost
        };
        AtomicInteger runs = new AtomicInteger();
        DueTask task = new DueTask(losing, () -> 0, () -> runs.get() == 0, runs::incrementAndGet, false, 0);
        task.request();
        assertThat(task.isPending()).isTrue();
        task.request(); // long overdue at once here (taken for lost after 0 ns)
        assertThat(kept).hasSize(1);
        kept.get(0).run();
        assertThat(runs).hasValue(1);
        assertThat(task.isPending()).isFalse();
    }

    /**
     * An observer that throws (as a flight-recorder event that runs out of memory might) in the middle of a decay
     * tick on a real event loop: the loop's periodic tick must go on, and the magazine's memory come back.
     */
    @Test
    void aDecayTickThatThrowsDoesNotStopTheTicks() throws Exception {
        AtomicInteger retirements = new AtomicInteger();
        AtomicBoolean armed = new AtomicBoolean(); // from the first tick on: the releases below retire chunks too
        PoolEvents throwingOnce = new PoolEvents() {
            @Override
            public void chunkRetired(int sizeClass, int chunkSize, long activeChunks, boolean pooled) {
                if (armed.get() && retirements.incrementAndGet() == 1) {
                    throw new OutOfMemoryError("an observer that fails on purpose");
                }
            }
        };
        MemoryPool pool = new MemoryPool(MagazineByteBufAllocator.builder().build(), false,
            new PoolSettings(0, 1 << 20, 8 << 20, 2, false, 20, 0, false), throwingOnce);
        EventExecutor loop = new DefaultEventExecutor();
        try {
            loop.submit(() -> {
                List<MagByteBuf> held = new ArrayList<>();
                for (int size : new int[] {512, 1024, 2048, 4096}) { // a chunk each: the failing tick leaves some
                    for (int i = 0; i < 50; i++) {
                        held.add(pool.allocate(size, size));
                    }
                }
                held.forEach(MagByteBuf::release);
                armed.set(true);
            }).get(30, TimeUnit.SECONDS);
            assertThat(pool.metrics().reservedBytes()).isPositive();
            assertThat(eventually(() -> pool.metrics().reservedBytes() == 0))
                .as("the magazine's memory back after a tick failed").isTrue();
            assertThat(retirements.get()).as("retirements by ticks, the first of which threw").isGreaterThan(1);
            assertThat(reported).contains(UpkeepFailures.Kind.DECAY_TICK);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * An executor that scheduled the ticks and then refuses a task (a loop shutting down, say): the ticks hand over to
     * the owner's slow paths, which tick from a period later, so that the magazine still gives back.
     */
    @Test
    void aRefusalAfterTheTicksWereScheduledHandsTheTicksToTheSlowPaths() throws Exception {
        RefusingLoop loop = new RefusingLoop("refusing-loop");
        try {
            // The test's thread plays the owner on its slow paths; the loop's own ticks are not counted.
            TickCountingTarget target = new TickCountingTarget(Thread.currentThread());
            MagazineDecay decay = loop.submit(() -> {
                MagazineDecay made = MagazineDecay.forCurrentThread(target, 20);
                made.onChunkTaken();
                return made;
            }).get(30, TimeUnit.SECONDS);
            assertThat(decay.ticksOnSlowPaths()).isFalse();
            loop.refusing = true;
            decay.askLoopForOwnerWork(); // refused: from now on the owner ticks on its slow paths
            assertThat(decay.ticksOnSlowPaths()).isTrue();
            assertThat(eventually(() -> {
                decay.onSlowPath();
                return target.ticks.get() > 0;
            })).as("a tick on the owner's slow paths after the hand-over").isTrue();
        } finally {
            loop.refusing = false;
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * No thread for the cleaner at first: the registration waits (its object weakly), and is made when a later one can
     * start the thread; its task runs once its object is gone. A task that throws is counted and reported.
     */
    @Test
    void workAfterACollectionWaitsForAThreadAndItsFailuresAreReported() throws Exception {
        AfterCollection.forgetCleanerForTests();
        java.util.function.Supplier<Cleaner> factory = AfterCollection.cleanerFactory;
        CountDownLatch ran = new CountDownLatch(2);
        long failuresBefore = UpkeepFailures.count(UpkeepFailures.Kind.AFTER_COLLECTION);
        try {
            AfterCollection.cleanerFactory = () -> {
                throw new OutOfMemoryError("unable to create native thread");
            };
            Object first = new Object();
            AfterCollection.register(first, () -> {
                ran.countDown();
                throw new IllegalStateException("work after a collection that fails on purpose");
            });
            assertThat(reported).contains(UpkeepFailures.Kind.THREAD_START);
            AfterCollection.cleanerFactory = factory;
            AfterCollection.register(new Object(), ran::countDown);
            first = null;
            for (int i = 0; i < 100 && ran.getCount() > 0; i++) {
                System.gc();
                ran.await(100, TimeUnit.MILLISECONDS);
            }
            assertThat(ran.getCount()).as("both tasks ran").isZero();
            assertThat(eventually(() -> UpkeepFailures.count(UpkeepFailures.Kind.AFTER_COLLECTION) > failuresBefore))
                .isTrue();
        } finally {
            AfterCollection.cleanerFactory = factory;
        }
    }

    /** Polls {@code condition} every 10 ms for up to 30 s: for what the code must do eventually. */
    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }
}
