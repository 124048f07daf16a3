package io.github.magalloc;

import org.junit.jupiter.api.Assumptions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ThreadFactory;

/**
 * Virtual threads for the allocator's tests, which compile for JDK 17: {@code Thread.ofVirtual().factory()} looked up
 * once, and a JUnit assumption that skips a test with a clear reason where the JDK has none (the library itself
 * tells them apart through Netty's {@code PlatformDependent.isVirtualThread}).
 */
public final class VirtualThreadsForTests {
    private static final ThreadFactory FACTORY = lookUp();

    private VirtualThreadsForTests() {
    }

    /** A factory of virtual threads; skips the calling test before JDK 21. */
    public static ThreadFactory factory() {
        Assumptions.assumeTrue(FACTORY != null,
            "virtual threads need JDK 21+; this is " + System.getProperty("java.version"));
        return FACTORY;
    }

    /** Starts {@code task} on a new virtual thread. */
    public static Thread start(Runnable task) {
        Thread thread = factory().newThread(task);
        thread.start();
        return thread;
    }

    private static ThreadFactory lookUp() {
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Object builder = lookup.findStatic(Thread.class, "ofVirtual",
                MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual"))).invoke();
            return (ThreadFactory) lookup.findVirtual(Class.forName("java.lang.Thread$Builder"), "factory",
                MethodType.methodType(ThreadFactory.class)).invoke(builder);
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            return null;
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.ofVirtual() is there but failed", e);
        }
    }
}
