package io.github.magalloc.soak;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Netty's leak detector for the whole soak, at PARANOID, with every leak it reports counted and printed; and the
 * canary that shows at the end that it works here.
 */
final class LeakCounter {
    private static final LongAdder LEAKS = new LongAdder();

    private LeakCounter() {
    }

    /** Must run before any ByteBuf class is loaded: Netty's buffers take their detector once, as their classes load. */
    static void install() {
        // Every buffer tracked; access records on retain/release only (a stack trace per getLong would make
        // the soak a benchmark of the leak detector).
        System.setProperty("io.netty.leakDetection.acquireAndReleaseOnly", "true");
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            // The abstract method a factory must implement; Netty 4.2 deprecates it with no abstract replacement.
            @SuppressWarnings("deprecation")
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval) {
                    @Override
                    protected boolean needReport() {
                        return true;
                    }

                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        LEAKS.increment();
                        System.out.println("soak: LEAK " + resourceType + records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.increment();
                        System.out.println("soak: LEAK " + resourceType);
                    }
                };
            }
        });
    }

    /**
     * Leak detection runs at PARANOID for the whole run. A canary buffer is leaked on purpose at the end to show
     * the detector works here: exactly one leak must be reported.
     */
    static void checkCanary(MagazineByteBufAllocator allocator, Consumer<String> fail) throws InterruptedException {
        MagazineByteBufAllocator canaryAllocator = new MagazineByteBufAllocator(false);
        canaryAllocator.heapBuffer(64).writeLong(42); // dropped without release: the canary
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // only a broken detector waits so long
        while (LEAKS.sum() == 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
            allocator.heapBuffer(8).release(); // the detector looks for collected buffers when it tracks one
        }
        System.out.println("soak: leak detector (PARANOID) reported " + LEAKS.sum() + " leak(s); 1 expected (canary)");
        if (LEAKS.sum() != 1) {
            fail.accept(LEAKS.sum() == 0 ? "the leak detector missed the canary: leak detection not working"
                : (LEAKS.sum() - 1) + " buffers leaked");
        }
    }
}
