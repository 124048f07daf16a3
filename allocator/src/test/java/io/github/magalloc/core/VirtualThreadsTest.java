package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.VirtualThreadsForTests;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Virtual threads on the allocator as servers run them (JDK 21+; skipped before): a request per virtual thread,
 * many at a time, on one long-lived allocator. Their buffer objects come from the stripes' homes (protocol 5a
 * (virtual threads' objects)): stale references of a running virtual thread still fail, objects are reused from
 * one request to the next, an ended virtual thread is not kept reachable, and no virtual thread gets a magazine,
 * is pinned by the allocator, or keeps its carrier while it waits for a stripe.
 */
class VirtualThreadsTest {
    private static final MagazineByteBufAllocator ALLOCATOR = MagazineByteBufAllocator.DEFAULT;

    /** Runs {@code count} tasks on virtual threads, at most {@code concurrency} at once; rethrows the first failure. */
    private static void runTasks(int count, int concurrency, Runnable task) throws InterruptedException {
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        java.util.concurrent.Semaphore running = new java.util.concurrent.Semaphore(concurrency);
        for (int i = 0; i < count; i++) {
            running.acquire();
            VirtualThreadsForTests.start(() -> {
                try {
                    task.run();
                } catch (Throwable t) {
                    failures.add(t);
                } finally {
                    running.release();
                }
            });
        }
        assertThat(running.tryAcquire(concurrency, 60, TimeUnit.SECONDS)).as("every task ended").isTrue();
        assertThat(failures).isEmpty();
    }

    @Test
    @Timeout(120)
    void aRunningVirtualThreadsStaleReferenceFailsWhileOtherRequestsAllocate() throws Exception {
        Set<MagByteBuf> othersObjects = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch released = new CountDownLatch(1);
        CountDownLatch othersDone = new CountDownLatch(1);
        List<ByteBuf> mine = new ArrayList<>();
        Thread holder = VirtualThreadsForTests.start(() -> {
            try {
                for (int size : new int[] {256, 1024, 4096, 40_000, 2_000_000}) {
                    mine.add(ALLOCATOR.directBuffer(size));
                    mine.add(ALLOCATOR.heapBuffer(size));
                }
                mine.forEach(ByteBuf::release);
                released.countDown();
                othersDone.await();
                for (ByteBuf stale : mine) {
                    assertThat(stale.refCnt()).as("count of a stale reference").isZero();
                    assertThatThrownBy(stale::release).isInstanceOf(IllegalReferenceCountException.class);
                }
            } catch (Throwable t) {
                failures.add(t);
            }
        });
        assertThat(released.await(30, TimeUnit.SECONDS)).isTrue();
        runTasks(20_000, 200, () -> {
            for (int size : new int[] {256, 1024, 4096, 40_000}) {
                ByteBuf direct = ALLOCATOR.directBuffer(size);
                ByteBuf heap = ALLOCATOR.heapBuffer(size);
                othersObjects.add(TestAccess.magByteBuf(direct));
                othersObjects.add(TestAccess.magByteBuf(heap));
                direct.release();
                heap.release();
            }
        });
        othersDone.countDown();
        holder.join();
        assertThat(failures).isEmpty();
        for (ByteBuf buf : mine) {
            assertThat(othersObjects.contains(TestAccess.magByteBuf(buf)))
                .as("an object of a running virtual thread was handed to another: %s", buf).isFalse();
        }
    }

    @Test
    @Timeout(120)
    void buffersObjectsAreReusedFromOneRequestToTheNext() throws Exception {
        MagazineByteBufAllocator allocator = new MagazineByteBufAllocator(true);
        Set<MagByteBuf> objects = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        int tasks = 20_000;
        runTasks(tasks, 100, () -> {
            List<ByteBuf> bufs = new ArrayList<>();
            for (int size : new int[] {256, 1024, 4096, 16384}) {
                ByteBuf buf = allocator.directBuffer(size);
                objects.add(TestAccess.magByteBuf(buf));
                bufs.add(buf);
            }
            Thread.yield();
            bufs.forEach(ByteBuf::release);
        });
        // A new object per buffer would be 80,000; at most 400 are live at once.
        assertThat(objects.size()).as("distinct buffer objects for %d requests of 4 buffers", tasks)
            .isLessThan(tasks / 10);
    }

    @Test
    @Timeout(120)
    void anEndedVirtualThreadIsNotKeptReachable() throws Exception {
        MagazineByteBufAllocator allocator = new MagazineByteBufAllocator(true);
        WeakReference<Thread> ended = endedVirtualThreadThatAllocated(allocator);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ended.get() != null && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(ended.get()).as("the ended virtual thread, after garbage collections").isNull();
        ByteBuf reused = allocator.directBuffer(256);
        assertThat(reused.refCnt()).isEqualTo(1);
        reused.release();
    }

    private static WeakReference<Thread> endedVirtualThreadThatAllocated(MagazineByteBufAllocator allocator)
            throws InterruptedException {
        Thread thread = VirtualThreadsForTests.start(() -> {
            allocator.directBuffer(256).release();
            allocator.directBuffer(40_000).release();
        });
        thread.join();
        return new WeakReference<>(thread);
    }

    @Test
    @Timeout(60)
    void virtualThreadsGetNoMagazineEvenWhenEveryThreadWouldAndCannotAttachOne() throws Exception {
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder()
            .threadLocalMagazinesForAllThreads(true).build();
        List<Throwable> attach = Collections.synchronizedList(new ArrayList<>());
        runTasks(100, 10, () -> {
            allocator.directBuffer(256).release();
            allocator.heapBuffer(1024).release();
            try {
                allocator.attachCurrentThread();
            } catch (IllegalStateException expected) {
                attach.add(expected);
            }
        });
        assertThat(TestAccess.pool(allocator, true).threadMagazineCount()).isZero();
        assertThat(TestAccess.pool(allocator, false).threadMagazineCount()).isZero();
        assertThat(attach).hasSize(100)
            .allSatisfy(e -> assertThat(e).hasMessageContaining("virtual thread"));
        // A platform thread of the same allocator still gets one.
        Thread platform = new Thread(() -> allocator.directBuffer(256).release());
        platform.start();
        platform.join();
        assertThat(TestAccess.pool(allocator, true).threadMagazineCount()).isEqualTo(1);
    }

    @Test
    @Timeout(120)
    void noAllocatorFramePinsAVirtualThread() throws Exception {
        VirtualThreadsForTests.factory();
        // One stripe, so that the virtual threads wait for its lock; sizes up to huge, heap and direct, releases on
        // the allocating thread and on others.
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        ConcurrentLinkedQueue<ByteBuf> handOffs = new ConcurrentLinkedQueue<>();
        VirtualThreadPins.assertNoAllocatorFramePinnedDuring(VirtualThreadsTest.class, () -> {
            runTasks(2_000, 100, () -> {
                for (int size : new int[] {64, 1024, 16384, 100_000, 2_000_000}) {
                    ByteBuf buf = size % 2 == 0 ? allocator.directBuffer(size) : allocator.heapBuffer(size);
                    buf.writeLong(size);
                    Thread.yield();
                    handOffs.add(buf);
                    ByteBuf other = handOffs.poll();
                    if (other != null) {
                        other.release();
                    }
                }
            });
            handOffs.forEach(ByteBuf::release);
        });
    }

    @Test
    @Timeout(120)
    void aVirtualThreadWaitingForAStripeGivesItsCarrierToOthers() throws Exception {
        VirtualThreadsForTests.factory();
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        Stripe stripe = TestAccess.pool(allocator, true).stripes().stripe(0);
        int waiters = 2 * Runtime.getRuntime().availableProcessors() + 2; // more than the carriers
        CountDownLatch allocated = new CountDownLatch(waiters);
        List<Thread> threads = new ArrayList<>();
        stripe.lock();
        try {
            for (int i = 0; i < waiters; i++) {
                threads.add(VirtualThreadsForTests.start(() -> {
                    allocator.directBuffer(256).release();
                    allocated.countDown();
                }));
            }
            Thread.sleep(100); // the waiters are on their carriers, spinning and yielding
            CountDownLatch probe = new CountDownLatch(1);
            VirtualThreadsForTests.start(probe::countDown);
            assertThat(probe.await(30, TimeUnit.SECONDS))
                .as("a virtual thread ran while %d others waited for the stripe", waiters).isTrue();
            assertThat(allocated.getCount()).as("no waiter got the held stripe").isEqualTo(waiters);
        } finally {
            stripe.unlock();
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(allocated.await(30, TimeUnit.SECONDS)).isTrue();
    }
}
