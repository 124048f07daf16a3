package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad input: double release, use after release, stale recycled buffers, double frees, interrupted threads. */
class FaultsTest {
    private final MagazineByteBufAllocator debug = MagazineByteBufAllocator.builder().debug(true).build();

    @AfterEach
    void detach() {
        debug.detachCurrentThread();
    }

    @Test
    void doubleReleaseIsAClearErrorAndCorruptsNothing() {
        ByteBuf buf = debug.directBuffer(256);
        ByteBuf other = debug.directBuffer(256).writeLong(7);
        assertThat(buf.release()).isTrue();
        assertThatThrownBy(buf::release).isInstanceOf(IllegalReferenceCountException.class);
        assertThat(buf.refCnt()).isZero();
        assertThat(other.getLong(0)).isEqualTo(7);
        assertThat(other.release()).isTrue();
    }

    @Test
    void useAfterReleaseIsAClearError() {
        ByteBuf buf = debug.heapBuffer(64).writeInt(1);
        buf.release();
        assertThatThrownBy(() -> buf.getInt(0)).isInstanceOf(IllegalReferenceCountException.class);
        assertThatThrownBy(() -> buf.writeInt(2)).isInstanceOf(IllegalReferenceCountException.class);
        assertThatThrownBy(buf::retain).isInstanceOf(IllegalReferenceCountException.class);
    }

    /**
     * A stale reference to a buffer whose memory went to a new buffer. Debug mode never recycles buffer objects, so the
     * stale reference stays released and cannot free the new owner's segment; the freed memory was poisoned, which the
     * new buffer (same segment, LIFO) shows before it is written.
     */
    @Test
    void staleRecycledBufferFailsLoudlyInDebugMode() {
        debug.attachCurrentThread(); // own magazine: the release is local, LIFO hands the same segment out again
        ByteBuf stale = debug.directBuffer(512).writeLong(1);
        long address = stale.hasMemoryAddress() ? stale.memoryAddress() : -1;
        stale.release();
        ByteBuf fresh = debug.directBuffer(512);
        assertThat(fresh).isNotSameAs(stale);
        if (address >= 0) {
            assertThat(fresh.memoryAddress()).as("same segment reused").isEqualTo(address);
        }
        assertThat(fresh.getByte(0)).as("freed memory poisoned").isEqualTo(MagByteBuf.POISON);
        fresh.writeLong(99);
        assertThatThrownBy(stale::release).isInstanceOf(IllegalReferenceCountException.class);
        assertThatThrownBy(() -> stale.getLong(0)).isInstanceOf(IllegalReferenceCountException.class);
        assertThat(fresh.refCnt()).isEqualTo(1);
        assertThat(fresh.getLong(0)).isEqualTo(99);
        assertThat(fresh.release()).isTrue();
    }

    /**
     * A segment freed twice into the local stack or the remote queue throws instead of overflowing (the counting
     * invariant of protocol 1 (release from any thread)).
     */
    @Test
    void doubleFreeOfASegmentThrows() {
        MemoryPool pool = StressFixtures.newDebugPool(debug, true);
        ThreadMagazine magazine = new ThreadMagazine(pool.supply(), Thread.currentThread(), m -> MagazineDecay.NONE);
        SizeClassChunk chunk = new SizeClassChunk(Slab.heap(4 * 1024), pool.supply().context, magazine, SizeClasses.indexOf(1024));
        int[] segments = new int[4];
        for (int i = 0; i < 4; i++) {
            segments[i] = chunk.allocateSegment();
        }
        assertThat(chunk.allocateSegment()).isEqualTo(-1);
        for (int s : segments) {
            magazine.releaseLocal(chunk, s);
        }
        assertThatThrownBy(() -> chunk.pushLocal(segments[0]))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("released more often than allocated");
        assertThat(chunk.freeCount).isEqualTo(4);

        SizeClassChunk remote = new SizeClassChunk(Slab.heap(2 * 1024), pool.supply().context, magazine, SizeClasses.indexOf(1024));
        int a = remote.allocateSegment();
        int b = remote.allocateSegment();
        remote.releaseRemote(a);
        remote.releaseRemote(b);
        assertThatThrownBy(() -> remote.releaseRemote(a)).isInstanceOf(IllegalStateException.class);
        assertThat(remote.drainRemote()).isEqualTo(2);
    }

    /** A double free in debug mode: the per-segment in-use bit catches it before any count overflows. */
    @Test
    void debugModeCatchesADoubleFreeAtOnce() {
        MemoryPool pool = StressFixtures.newDebugPool(debug, false);
        Stripe magazine = new Stripe(pool.supply());
        SizeClassChunk chunk = new SizeClassChunk(Slab.heap(4 * 1024), pool.supply().context, magazine, SizeClasses.indexOf(1024));
        StressFixtures.makeCurrent(magazine, chunk);
        MagByteBuf buf = StressFixtures.bufferHolding(pool, chunk, chunk.allocateSegment());
        chunk.release(buf, Thread.currentThread().getId());
        assertThatThrownBy(() -> chunk.release(buf, Thread.currentThread().getId()))
            .isInstanceOf(IllegalStateException.class);
    }

    /**
     * Growth (protocol 5 (buffer objects)) moves the buffer; the old bytes are copied before the old (poisoned) memory
     * is freed.
     */
    @Test
    void growCopiesBeforeFreeing() {
        for (boolean direct : new boolean[] {false, true}) {
            ByteBuf buf = direct ? debug.directBuffer(100) : debug.heapBuffer(100);
            for (int i = 0; i < 100; i++) {
                buf.writeByte(i);
            }
            buf.capacity(40_000); // beyond the segment: moves to a large chunk
            buf.ensureWritable(3_000_000); // beyond the pooling limit: moves to huge memory
            for (int i = 0; i < 100; i++) {
                assertThat(buf.getByte(i)).isEqualTo((byte) i);
            }
            assertThat(buf.release()).isTrue();
        }
    }

    /** An interrupted thread still allocates (from its magazine or a shared one) and keeps its interrupt status. */
    @Test
    void interruptedThreadAllocatesAndStaysInterrupted() throws Exception {
        List<Throwable> errors = new ArrayList<>();
        Thread t = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                for (int i = 0; i < 10_000; i++) {
                    ByteBuf buf = debug.directBuffer(1 + i % 40_000);
                    buf.writeByte(1);
                    buf.release();
                }
                debug.attachCurrentThread();
                debug.heapBuffer(128).release();
                if (!Thread.currentThread().isInterrupted()) {
                    errors.add(new AssertionError("interrupt status lost"));
                }
            } catch (Throwable e) {
                errors.add(e);
            }
        });
        t.start();
        t.join();
        assertThat(errors).isEmpty();
    }
}
