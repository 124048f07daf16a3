package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Protocol 4 (ended threads): threads with magazines of their own die while their buffers live on. Other threads
 * release those buffers later. A thread that cleans up at exit hands its magazine over then, and its chunks go back
 * with their last buffers, before any {@code trim()}; a dead attached thread's magazine is ended by the reaper at
 * {@code trim()}. Afterwards memory is zero (this allocator served no other thread) and the dead {@code Thread} and
 * its buffer objects are not kept reachable.
 */
class ThreadDeathTest {
    private static final int BUFFERS = 3_000;

    @Test
    void eventLoopThreadExitsHoldingBuffers() throws Exception {
        // A FastThreadLocalThread that cleans up: FastThreadLocal.onRemoval hands the magazine over at exit.
        runAndCheck(new DefaultThreadFactory("dying-loop")::newThread, false);
    }

    @Test
    void attachedPlainThreadDiesWithoutDetaching() throws Exception {
        // No cleanup at exit: the reaper (trim) must notice the dead thread.
        runAndCheck(r -> new Thread(r, "dying-attached"), true);
    }

    @Test
    void threadKilledByAnExceptionHoldingBuffers() throws Exception {
        runAndCheck(r -> {
            Thread t = new DefaultThreadFactory("killed-loop").newThread(() -> {
                r.run();
                throw new IllegalStateException("killed on purpose");
            });
            t.setUncaughtExceptionHandler((th, e) -> { });
            return t;
        }, false);
    }

    private interface Threads {
        Thread newThread(Runnable r);
    }

    private static void runAndCheck(Threads threads, boolean attach) throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        ConcurrentLinkedQueue<ByteBuf> live = new ConcurrentLinkedQueue<>();
        List<WeakReference<MagByteBuf>> objects = new ArrayList<>();
        Thread owner = threads.newThread(() -> {
            if (attach) {
                alloc.attachCurrentThread();
            }
            for (int i = 0; i < BUFFERS; i++) {
                int size = 16 + (i * 131) % 20_000;
                ByteBuf buf = i % 2 == 0 ? alloc.directBuffer(size) : alloc.heapBuffer(size);
                buf.writeInt(i);
                synchronized (objects) {
                    objects.add(new WeakReference<>(StressFixtures.magByteBuf(buf)));
                }
                if (i % 3 == 0) {
                    buf.release(); // some released by the owner itself
                } else {
                    live.add(buf);
                }
            }
        });
        owner.start();
        owner.join();
        assertThat(alloc.metric().usedDirectMemory()).isPositive();

        // Released by this (foreign) thread after the owner died; the memory must still be intact.
        List<ByteBuf> buffers = new ArrayList<>(live);
        live.clear();
        for (int i = 0; i < buffers.size(); i++) {
            assertThat(buffers.get(i).getInt(0) % 3).isNotZero();
            assertThat(buffers.get(i).release()).isTrue();
        }
        buffers.clear();
        MagazineByteBufAllocatorMetric metric = alloc.metric();
        if (!attach) {
            // The thread cleaned up at exit: its chunks went back as their last buffers were released, no trim().
            assertThat(metric.endedThreadsMemory(true)).isZero();
            assertThat(metric.endedThreadsMemory(false)).isZero();
            assertThat(metric.usedDirectMemory()).isEqualTo(metric.pooledFreeMemory(true));
            assertThat(metric.usedHeapMemory()).isEqualTo(metric.pooledFreeMemory(false));
        }
        alloc.trim();

        assertThat(metric.threadLocalMagazines(true)).isZero();
        assertThat(metric.threadLocalMagazines(false)).isZero();
        for (int i = 0; i < metric.sizeClassCount(); i++) {
            assertThat(metric.activeChunks(true, i)).as("direct chunks of class %d", i).isZero();
            assertThat(metric.activeChunks(false, i)).as("heap chunks of class %d", i).isZero();
        }
        assertThat(metric.usedDirectMemory()).isZero();
        assertThat(metric.usedHeapMemory()).isZero();

        WeakReference<Thread> dead = new WeakReference<>(owner);
        owner = null;
        for (int i = 0; i < 50 && dead.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(dead.get()).as("dead thread collected").isNull();
        // Nor are its buffer objects kept: those it kept for reuse and those other threads sent back to it went
        // with its magazine's end (no memory either: released objects forget theirs).
        synchronized (objects) {
            assertThat(objects).hasSize(BUFFERS);
            assertThat(objects.stream().filter(o -> o.get() != null).count()).as("buffer objects still reachable")
                .isZero();
        }
    }
}
