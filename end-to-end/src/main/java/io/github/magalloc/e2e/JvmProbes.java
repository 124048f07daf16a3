package io.github.magalloc.e2e;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What the server measures about its own JVM besides RSS ({@code Rss}): allocation by its threads, GC. */
public final class JvmProbes {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final List<Thread> tracked = new CopyOnWriteArrayList<>();

    /** Netty event-loop threads (FastThreadLocalThread, like the defaults) whose allocation gets counted. */
    public DefaultThreadFactory threadFactory(String name) {
        return new DefaultThreadFactory(name) {
            @Override
            protected Thread newThread(Runnable r, String threadName) {
                Thread t = super.newThread(r, threadName);
                tracked.add(t);
                return t;
            }
        };
    }

    /** Bytes allocated on the Java heap so far by the tracked threads (TLABs and outside them). */
    @SuppressWarnings("deprecation") // Thread#getId: threadId() only exists from Java 19
    public long allocatedBytes() {
        long sum = 0;
        for (Thread t : tracked) {
            long b = THREADS.getThreadAllocatedBytes(t.getId());
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }

    public static long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    public static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }
}
