package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Protocol 6a (shrinking), what a derived buffer sees after {@code capacity(smaller)}: a slice reads and writes through
 * its buffer's current memory, at its own bounds. Below the new capacity it sees the buffer's kept bytes, in place or
 * moved; beyond it, it reaches memory that is no longer the buffer's (given back in place, or past the end of the
 * memory it moved to). Debug mode reports a write there into free memory at that memory's next hand-out.
 */
class SlicesAcrossShrinkTest {
    private static final int LARGE = 64 * 1024;

    @Test
    void aSliceSeesTheKeptBytesOfABufferShrunkInPlace() {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        ByteBuf buf = filled(alloc.directBuffer(LARGE), LARGE);
        ByteBuf slice = buf.slice(0, LARGE);
        String before = TestAccess.memoryIdentity(buf);
        buf.capacity(8192);
        assertThat(TestAccess.memoryIdentity(buf)).as("kept in place").isEqualTo(before);
        assertKeptBytesAgree(buf, slice, 8192);
        buf.release();
    }

    @Test
    void aSliceSeesTheKeptBytesOfABufferThatMoved() {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        ByteBuf buf = filled(alloc.directBuffer(1000), 1000);
        ByteBuf slice = buf.slice(0, 1000);
        String before = TestAccess.memoryIdentity(buf);
        buf.capacity(100);
        assertThat(TestAccess.memoryIdentity(buf)).as("moved").isNotEqualTo(before);
        assertKeptBytesAgree(buf, slice, 100);
        buf.release();
    }

    /** The slice keeps its own bounds; below the new capacity it reads what the buffer holds; the buffer checks its. */
    private static void assertKeptBytesAgree(ByteBuf buf, ByteBuf slice, int newCapacity) {
        assertThat(slice.capacity()).as("the slice's own bounds").isGreaterThan(newCapacity);
        for (int i = 0; i < newCapacity; i++) {
            assertThat(slice.getByte(i)).isEqualTo(buf.getByte(i)).isEqualTo((byte) i);
        }
        slice.setByte(newCapacity - 1, 77);
        assertThat(buf.getByte(newCapacity - 1)).as("a write below the new capacity is the buffer's").isEqualTo((byte) 77);
        assertThatThrownBy(() -> buf.getByte(newCapacity)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    /**
     * Debug mode: a large buffer shrinks in place to one page, a slice taken before writes into a page it gave back,
     * and the next allocation of that page reports it; nothing is lost, and the allocation after succeeds.
     */
    @Test
    void debugModeReportsAStaleSlicesWriteIntoPagesGivenBack() {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().debug(true).build();
        ByteBuf buf = filled(alloc.directBuffer(LARGE), LARGE);
        ByteBuf slice = buf.slice(0, LARGE);
        buf.capacity(8192);
        slice.setByte(20_000, 1); // a page the shrink gave back

        assertThatThrownBy(() -> alloc.directBuffer(LARGE - 8192)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("written after it was freed").hasMessageContaining("slice");
        ByteBuf next = alloc.directBuffer(LARGE - 8192);
        assertThat(next.capacity()).isEqualTo(LARGE - 8192);
        next.release();
        buf.release();
    }

    /**
     * Debug mode on a plain thread (a stripe's lock held): a stale NIO view of a released large buffer writes into its
     * chunk, now empty; the next allocation of those pages reports it, and giving the run back empties the chunk
     * again. The report must reach the caller, not wait for the stripe's lock the caller holds.
     */
    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a spinning wait ignores interrupts
    void debugModeReportsAStaleWriteIntoAnEmptyLargeChunkOnAPlainThread() {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().debug(true).build();
        ByteBuf buf = alloc.directBuffer(LARGE);
        java.nio.ByteBuffer view = buf.nioBuffer(0, LARGE);
        buf.release();
        view.put(20_000, (byte) 1); // the chunk's pages are all free now

        assertThatThrownBy(() -> alloc.directBuffer(LARGE)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("written after it was freed");
        ByteBuf next = alloc.directBuffer(LARGE);
        assertThat(next.capacity()).isEqualTo(LARGE);
        next.release();
    }

    /**
     * Debug mode: a buffer of the 1,024-byte class moves to the 112-byte class; a slice taken before writes past the end
     * of the new segment, into a free neighbour, and the allocation that would take that neighbour reports it.
     */
    @Test
    void debugModeReportsAStaleSlicesWriteIntoAFreeSegment() {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().debug(true).build();
        ByteBuf buf = filled(alloc.directBuffer(1000), 1000);
        ByteBuf slice = buf.slice(0, 1000);
        buf.capacity(100);
        slice.setByte(500, 1); // four segments of 112 bytes on, in the same chunk

        List<ByteBuf> taken = new ArrayList<>();
        IllegalStateException reported = null;
        for (int i = 0; i < 64 && reported == null; i++) {
            try {
                taken.add(alloc.directBuffer(100));
            } catch (IllegalStateException e) {
                reported = e;
            }
        }
        assertThat(reported).as("reported at the neighbour's hand-out").isNotNull()
            .hasMessageContaining("written after it was freed");
        taken.add(alloc.directBuffer(100)); // the segment was poisoned again and handed out
        taken.forEach(ByteBuf::release);
        buf.release();
    }

    private static ByteBuf filled(ByteBuf buf, int bytes) {
        for (int i = 0; i < bytes; i++) {
            buf.writeByte(i);
        }
        return buf;
    }
}
