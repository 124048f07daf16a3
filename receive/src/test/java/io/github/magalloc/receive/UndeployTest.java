package io.github.magalloc.receive;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import org.jctools.queues.MpscArrayQueue;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application undeployed from a container leaves nothing of magalloc's behind: magalloc (the allocator and the
 * receive module) in a class loader of the application's own, over a parent holding Netty and JCTools (a container's
 * shared library), {@code DEFAULT} used for heap and direct buffers on a thread of the application, on a Netty event
 * loop and (JDK 21+) on a virtual thread, a receive allocator made; then the loop shut down, every reference
 * dropped and the loader closed: the loader must be collected, and nothing may log for magalloc afterwards. Nothing is
 * called at undeploy. The parent initializes the Netty classes the application uses first, as a container that uses
 * Netty has: some keep an exception from their first initialization, whose stack names the classes that caused it.
 */
class UndeployTest {
    /**
     * Collections (100 ms apart) to wait for the loader to go: the background threads end a second after their last
     * task, and the trim of the C heap waits for a quiet period first. A bound that only a leak reaches on a busy
     * machine; once the loader is collected no class of the application's is left to log.
     */
    private static final int COLLECTIONS = 600;

    @Test
    void anUndeployedApplicationsLoaderIsCollectedAndNothingLogsAfterwards() throws Exception {
        URLClassLoader shared = new URLClassLoader(new URL[] {jarOf(ByteBuf.class), jarOf(PlatformDependent.class),
            jarOf(io.netty.channel.Channel.class), jarOf(io.netty.resolver.AddressResolver.class),
            jarOf(MpscArrayQueue.class)}, ClassLoader.getPlatformClassLoader());
        // A container that shares Netty has used it: its classes whose static state keeps an exception (whose stack
        // would name the first caller's classes, an application's) are initialized by the container, not the app.
        for (String used : new String[] {PlatformDependent.class.getName(),
            "io.netty.util.concurrent.ImmediateEventExecutor", "io.netty.util.concurrent.GlobalEventExecutor",
            "io.netty.channel.DefaultEventLoop"}) {
            Class.forName(used, true, shared);
        }
        Logged logged = new Logged();
        Logger magallocLogs = Logger.getLogger("io.github.magalloc");
        magallocLogs.addHandler(logged);
        try {
            WeakReference<ClassLoader> application = deployUseAndUndeploy(shared);
            for (int i = 0; i < COLLECTIONS && application.get() != null; i++) {
                System.gc();
                Thread.sleep(100);
            }
            assertThat(logged.records).as("magalloc's log after the undeploy").isEmpty();
            assertThat(application.get()).as("the undeployed application's class loader, collected").isNull();
        } finally {
            magallocLogs.removeHandler(logged);
            shared.close();
        }
    }

    /** Everything the application holds is local to this method, and unreachable once it returns. */
    @SuppressWarnings("unchecked") // the application's entry point, loaded by name
    private static WeakReference<ClassLoader> deployUseAndUndeploy(ClassLoader shared) throws Exception {
        URLClassLoader application = new URLClassLoader(new URL[] {classesOf("allocator"), classesOf("receive"),
            testClasses()}, shared);
        Thread caller = Thread.currentThread();
        ClassLoader callersLoader = caller.getContextClassLoader();
        caller.setContextClassLoader(application);
        try {
            Callable<String> app = (Callable<String>) application.loadClass(UndeployedApplication.class.getName())
                .getDeclaredConstructor().newInstance();
            assertThat(app.call()).isEqualTo("used");
        } finally {
            caller.setContextClassLoader(callersLoader);
        }
        application.close();
        return new WeakReference<>(application);
    }

    /** The jar (or directory) a class comes from. */
    private static URL jarOf(Class<?> type) throws URISyntaxException, IOException {
        return type.getProtectionDomain().getCodeSource().getLocation().toURI().toURL();
    }

    /** A module's main classes, built beside this one's. */
    private static URL classesOf(String module) throws IOException {
        Path classes = Path.of("..", module, "target", "classes").toAbsolutePath().normalize();
        assertThat(Files.isDirectory(classes)).as("built classes of " + module).isTrue();
        return classes.toUri().toURL();
    }

    private static URL testClasses() throws URISyntaxException, IOException {
        return jarOf(UndeployTest.class);
    }

    /**
     * Records what magalloc's loggers publish, as text: a record's exception would keep the classes on its stack, and
     * with them the loader the test waits for.
     */
    private static final class Logged extends Handler {
        final List<String> records = new ArrayList<>();

        @Override
        public synchronized void publish(LogRecord record) {
            records.add(record.getLevel() + " " + record.getLoggerName() + ": " + record.getMessage()
                + (record.getThrown() == null ? "" : " " + record.getThrown()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
