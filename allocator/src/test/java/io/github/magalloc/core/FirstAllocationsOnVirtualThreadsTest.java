package io.github.magalloc.core;

import io.github.magalloc.MagazineAllocatorConfig;
import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.VirtualThreadsForTests;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first allocations in a JVM, made by many virtual threads at once, pin none of them (JDK 21+; skipped before).
 * Runs in a JVM of its own (its own surefire execution), so that no magalloc class has been initialized by another
 * test: a virtual thread that runs a static initializer, or waits for another thread running one, is pinned to its
 * carrier, and the classes that allocations use are initialized when an allocator is made, on the thread that makes
 * it. Several allocators of one stripe each, so that virtual threads of different allocators reach the same classes
 * at once, none waiting for another's lock; with different settings (debug mode, no decay, a small pooled size and
 * no reuse budget), so that the classes of every path are reached.
 */
class FirstAllocationsOnVirtualThreadsTest {
    private static final int ALLOCATORS = 8;
    private static final int THREADS_PER_ALLOCATOR = 16;
    private static final int[] SIZES = {64, 16384, 100_000, 2_000_000};

    @Test
    @Timeout(120)
    void theFirstAllocationsPinNoVirtualThread() throws Exception {
        VirtualThreadsForTests.factory();
        List<MagazineByteBufAllocator> allocators = new ArrayList<>();
        for (int i = 0; i < ALLOCATORS; i++) {
            allocators.add(configured(i).sharedMagazines(1).build());
        }
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        VirtualThreadPins.assertNoAllocatorFramePinnedDuring(FirstAllocationsOnVirtualThreadsTest.class, () -> {
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < ALLOCATORS * THREADS_PER_ALLOCATOR; i++) {
                MagazineByteBufAllocator allocator = allocators.get(i % ALLOCATORS);
                boolean direct = (i / ALLOCATORS) % 2 == 0;
                threads.add(VirtualThreadsForTests.start(() -> {
                    try {
                        go.await();
                        for (int size : SIZES) {
                            ByteBuf buf = direct ? allocator.directBuffer(size) : allocator.heapBuffer(size);
                            buf.writeLong(size);
                            buf.capacity(size * 2);
                            assertThat(buf.readLong()).isEqualTo(size);
                            buf.release();
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            go.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
        });
        assertThat(failures).isEmpty();
    }

    /**
     * The settings that change which code an allocation or a release runs, each on some allocators: classes only
     * one of them uses must be loaded ahead too.
     */
    private static MagazineAllocatorConfig.Builder configured(int allocator) {
        MagazineAllocatorConfig.Builder builder = MagazineByteBufAllocator.builder();
        switch (allocator % 4) {
            case 1:
                return builder.debug(true);
            case 2:
                return builder.decayMillis(0).nativeTrimMillis(0);
            case 3:
                return builder.maxPooledSize(64 * 1024).reuseBudgetBytes(0);
            default:
                return builder;
        }
    }
}
