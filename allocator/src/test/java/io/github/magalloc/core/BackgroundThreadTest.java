package io.github.magalloc.core;

import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.security.AccessControlContext;
import java.security.AccessController;
import java.security.CodeSource;
import java.security.PrivilegedAction;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The allocator's own threads keep nothing of the application thread that starts them ({@link DaemonThreads}), and a
 * schedule that cannot start a thread leaves nothing queued ({@link BackgroundThread}).
 */
class BackgroundThreadTest {
    @Test
    void aScheduleThatCannotStartAThreadQueuesNothingAndAFailedDueTaskIsNotLeftPending() {
        AtomicInteger starts = new AtomicInteger();
        BackgroundThread background = new BackgroundThread("test-background", (name, body) -> {
            starts.incrementAndGet();
            throw new OutOfMemoryError("unable to create native thread");
        });
        assertThatThrownBy(() -> background.schedule(() -> { }, 0)).isInstanceOf(OutOfMemoryError.class);
        assertThat(background.queued()).isZero();
        assertThat(background.thread()).isNull();

        // Work that must not run on the requester is skipped, not left queued or pending: each request tries again.
        AtomicInteger runs = new AtomicInteger();
        DueTask task = new DueTask(background::schedule, () -> 0, () -> true, runs::incrementAndGet, false);
        for (int i = 0; i < 3; i++) {
            task.request();
            assertThat(task.isPending()).isFalse();
        }
        assertThat(background.queued()).isZero();
        assertThat(runs).hasValue(0);
        assertThat(starts).hasValue(4);
    }

    @Test
    void tasksRunInDueOrderAndTheThreadEndsWhenIdleAndStartsAgain() throws Exception {
        BackgroundThread background = new BackgroundThread("test-background", DaemonThreads::start);
        StringBuffer order = new StringBuffer();
        CountDownLatch done = new CountDownLatch(3);
        // A gate task holds the thread until all three are queued: without it, a pause of this thread longer than
        // c's delay lets c fall due and run before a is even queued ("cab"), which is right, but not what is tested.
        CountDownLatch allQueued = new CountDownLatch(1);
        long base = System.nanoTime();
        background.scheduleAt(() -> awaitQuietly(allQueued), base);
        background.scheduleAt(() -> { order.append('c'); done.countDown(); }, base + TimeUnit.MILLISECONDS.toNanos(60));
        background.scheduleAt(() -> { order.append('a'); done.countDown(); }, base + 1);
        background.scheduleAt(() -> { order.append('b'); done.countDown(); }, base + TimeUnit.MILLISECONDS.toNanos(30));
        allQueued.countDown();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(order).hasToString("abc");

        Thread first = background.thread();
        assertThat(first).isNotNull();
        first.join(TimeUnit.NANOSECONDS.toMillis(BackgroundThread.KEEP_ALIVE_NANOS) + 10_000);
        assertThat(first.isAlive()).as("ended after a keep-alive with nothing queued").isFalse();
        assertThat(background.thread()).isNull();

        CountDownLatch again = new CountDownLatch(1);
        background.schedule(again::countDown, 0);
        assertThat(again.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aTaskQueuedWhileTheThreadWaitsForALaterOneWakesItAndRunsFirst() throws Exception {
        BackgroundThread background = new BackgroundThread("test-background", DaemonThreads::start);
        AtomicInteger lateRuns = new AtomicInteger();
        background.schedule(lateRuns::incrementAndGet, TimeUnit.HOURS.toMillis(1));
        CountDownLatch started = new CountDownLatch(1);
        background.schedule(started::countDown, 0);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        // The thread now waits for the task due in an hour; the next one, due now, must wake it.
        CountDownLatch early = new CountDownLatch(1);
        background.schedule(early::countDown, 0);
        assertThat(early.await(10, TimeUnit.SECONDS)).as("a task due now waits for one due later").isTrue();
        assertThat(lateRuns).hasValue(0);
        assertThat(background.queued()).isEqualTo(1);
    }

    @Test
    void aTaskThatThrowsDoesNotStopTheTasksBehindIt() throws Exception {
        BackgroundThread background = new BackgroundThread("test-background", DaemonThreads::start);
        CountDownLatch after = new CountDownLatch(1);
        background.schedule(() -> {
            throw new IllegalStateException("a task that fails on purpose");
        }, 0);
        background.schedule(after::countDown, 10);
        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * Started from a thread with an inheritable thread local, a context class loader and (JDK 17 to 23) an
     * access-control context whose protection domain names an application's class loader: once the application drops
     * them, the collector takes them while the background thread runs on. A plain {@code new Thread} would keep all
     * three: its inherited thread locals and context loader strongly, its captured access-control context through the
     * domain.
     */
    @Test
    void theBackgroundThreadKeepsNothingOfTheThreadThatStartsIt() throws Exception {
        BackgroundThread background = new BackgroundThread("test-background", DaemonThreads::start);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<WeakReference<Object>> threadLocalValue = new AtomicReference<>();
        AtomicReference<WeakReference<ClassLoader>> applicationLoader = new AtomicReference<>();
        Thread application = new Thread(() -> startFromApplication(background, release, threadLocalValue,
            applicationLoader));
        application.start();
        application.join();
        Thread started = background.thread();
        for (int i = 0; i < 1000 && started == null; i++) {
            Thread.sleep(10); // the thread names itself the runner when it starts
            started = background.thread();
        }
        assertThat(started).isNotNull();
        assertThat(started.getContextClassLoader()).isNull();
        assertThat(started.isDaemon()).isTrue();
        try {
            for (int i = 0; i < 20 && (threadLocalValue.get().get() != null || applicationLoader.get().get() != null);
                 i++) {
                System.gc();
                Thread.sleep(50);
            }
            assertThat(started.isAlive()).as("the background thread still runs").isTrue();
            assertThat(threadLocalValue.get().get()).as("the starting thread's inheritable thread local").isNull();
            assertThat(applicationLoader.get().get()).as("the application's class loader").isNull();
        } finally {
            release.countDown();
        }
    }

    private static final InheritableThreadLocal<Object> INHERITED = new InheritableThreadLocal<>();

    /** The application's side: everything it holds is local to this method, and gone when it returns. */
    @SuppressWarnings("removal") // AccessController: the access-control context that JDK 17 to 23 capture
    private static void startFromApplication(BackgroundThread background, CountDownLatch release,
                                             AtomicReference<WeakReference<Object>> threadLocalValue,
                                             AtomicReference<WeakReference<ClassLoader>> applicationLoader) {
        Object value = new Object();
        ClassLoader loader = new URLClassLoader(new URL[0], null);
        threadLocalValue.set(new WeakReference<>(value));
        applicationLoader.set(new WeakReference<>(loader));
        INHERITED.set(value);
        Thread.currentThread().setContextClassLoader(loader);
        ProtectionDomain domain = new ProtectionDomain(new CodeSource(null, (Certificate[]) null), null, loader, null);
        AccessControlContext context = new AccessControlContext(new ProtectionDomain[] {domain});
        AccessController.doPrivileged((PrivilegedAction<Void>) () -> {
            // The task waits, so the thread stays alive while the test looks; it references nothing of the above.
            background.schedule(() -> awaitQuietly(release), 0);
            return null;
        }, context);
        INHERITED.remove();
        Thread.currentThread().setContextClassLoader(null);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
