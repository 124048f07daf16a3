package io.github.magalloc.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Collects every ByteBuf leak Netty reports. Netty keeps one detector for all ByteBufs (AbstractByteBuf.leakDetector,
 * created when that class loads, so a custom ResourceLeakDetectorFactory can come too late); its LeakListener is public
 * API, only the field is package-private, hence the reflection.
 */
final class LeakWatcher {
    private final List<String> reports = new CopyOnWriteArrayList<>();

    private LeakWatcher() {
    }

    /** Sets leak detection to PARANOID (every buffer tracked) and starts collecting reports. */
    static LeakWatcher install() throws ReflectiveOperationException {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        Field f = Class.forName("io.netty.buffer.AbstractByteBuf").getDeclaredField("leakDetector");
        f.setAccessible(true);
        @SuppressWarnings("unchecked")
        ResourceLeakDetector<ByteBuf> detector = (ResourceLeakDetector<ByteBuf>) f.get(null);
        LeakWatcher w = new LeakWatcher();
        detector.setLeakListener((type, records) -> w.reports.add(type + ":\n" + records));
        return w;
    }

    /**
     * Netty only reports a leak when a later buffer is tracked after the leaked one was collected: force GCs and
     * allocate (and release) buffers in between, for about {@code millis}.
     */
    void provokeReports(ByteBufAllocator alloc, long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        do {
            System.gc();
            Thread.sleep(20);
            for (int i = 0; i < 50; i++) {
                alloc.buffer(64).release();
                alloc.heapBuffer(64).release();
            }
        } while (System.nanoTime() < end);
    }

    List<String> reports() {
        return List.copyOf(reports);
    }

    void clear() {
        reports.clear();
    }
}
