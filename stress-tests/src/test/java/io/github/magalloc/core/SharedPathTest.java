package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two properties under contention (one stripe, several threads): the buffers of one slab share no NIO buffer state,
 * and a busy stripe never makes the allocator fall back to unpooled buffers.
 */
class SharedPathTest {
    static final int THREADS = 4;
    private static final int ROUNDS = 20_000;

    /**
     * Threads contending for one stripe wait for it (design.md, "Which magazine serves a thread"); every buffer they
     * get is a pooled magalloc buffer (no unpooled fallback), and only a handful of slabs is ever taken. Each thread
     * keeps a window of 64 live buffers, as a proxy does (an empty window is {@link SharedMagazineContentionTest}).
     */
    @Test
    void contentionNeverFallsBackToUnpooled() throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        List<Throwable> errors = runThreads(() -> {
            ByteBuf[] window = new ByteBuf[64];
            for (int i = 0; i < ROUNDS; i++) {
                ByteBuf buf = alloc.directBuffer(256);
                if (!(StressFixtures.magByteBuf(buf).memory() instanceof SizeClassChunk)) {
                    throw new AssertionError("not served from a pooled size-class chunk: " + buf);
                }
                buf.writeLong(i);
                ByteBuf old = window[i % window.length];
                window[i % window.length] = buf;
                if (old != null) {
                    old.release();
                }
            }
            for (ByteBuf buf : window) {
                buf.release();
            }
        });
        assertThat(errors).isEmpty();
        assertThat(alloc.metric().slabsAllocated(true)).isLessThanOrEqualTo(THREADS + 1);
    }

    /**
     * Buffers cut from one slab share its ByteBuffer; NIO views handed out by different threads at the same time must
     * each have their own position and limit.
     */
    @Test
    void nioViewsOfOneSlabDoNotShareState() throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        List<ByteBuf> buffers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            ByteBuf buf = alloc.directBuffer(1000);
            for (int i = 0; i < 1000; i++) {
                buf.writeByte(t * 31 + i);
            }
            buffers.add(buf);
        }
        int[] next = {0};
        List<Throwable> errors = runThreads(() -> {
            ByteBuf buf;
            int t;
            synchronized (next) {
                t = next[0]++;
                buf = buffers.get(t);
            }
            byte[] copy = new byte[1000];
            for (int round = 0; round < ROUNDS; round++) {
                ByteBuffer view = buf.nioBuffer(round % 500, 500);
                ByteBuffer internal = buf.internalNioBuffer(0, 1000);
                if (view.remaining() != 500 || internal.remaining() != 1000) {
                    throw new AssertionError("view state shared: " + view + " " + internal);
                }
                internal.get(copy);
                for (int i = 0; i < 1000; i++) {
                    if (copy[i] != (byte) (t * 31 + i)) {
                        throw new AssertionError("thread " + t + " read another buffer's byte at " + i);
                    }
                }
                if (view.get() != (byte) (t * 31 + round % 500)) {
                    throw new AssertionError("view positioned on another buffer");
                }
            }
        });
        assertThat(errors).isEmpty();
        buffers.forEach(ByteBuf::release);
    }

    static List<Throwable> runThreads(Runnable body) throws Exception {
        List<Throwable> errors = new ArrayList<>();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    body.run();
                } catch (Throwable e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        return errors;
    }
}
