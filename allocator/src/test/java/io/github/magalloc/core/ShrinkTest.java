package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.BufferMemory;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Protocol 6a (shrinking) in design.md, through the allocator: {@code capacity(smaller)} gives memory back where that
 * saves at least half (a size-classed buffer moves to the smallest class, a large one gives its tail pages back in
 * place, a huge one moves), keeping the object, its reference count, indices, max capacity and its first bytes (the new capacity's); the
 * memory goes back whichever thread releases the buffer afterwards, also when its thread has ended.
 */
class ShrinkTest {
    private static final int KIB = 1024;
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final MagazineByteBufAllocatorMetric metric = allocator.metric();

    private ByteBuf buffer(boolean direct, int capacity) {
        return direct ? allocator.directBuffer(capacity) : allocator.heapBuffer(capacity);
    }

    /** A buffer of {@code capacity} whose bytes [0, written) are a pattern and whose reader index is {@code read}. */
    private ByteBuf filled(boolean direct, int capacity, int read, int written) {
        ByteBuf buf = buffer(direct, capacity);
        for (int i = 0; i < written; i++) {
            buf.writeByte(pattern(i));
        }
        buf.readerIndex(read);
        return buf;
    }

    private static byte pattern(int index) {
        return (byte) (index * 31 + 7);
    }

    /** The indices are as given, and every byte written before {@code written} is kept, read or not. */
    private static void assertBytesKept(ByteBuf buf, int read, int written) {
        assertThat(buf.readerIndex()).isEqualTo(read);
        assertThat(buf.writerIndex()).isEqualTo(written);
        for (int i = 0; i < written; i++) {
            assertThat(buf.getByte(i)).as("byte %d", i).isEqualTo(pattern(i));
        }
    }

    @ParameterizedTest(name = "direct={0}")
    @ValueSource(booleans = {true, false})
    void aSizeClassedBufferMovesToTheSmallestClassKeepingObjectCountIndicesAndBytes(boolean direct) {
        ByteBuf buf = filled(direct, 16 * KIB, 100, 1500);
        buf.retain();
        MagByteBuf object = TestAccess.magByteBuf(buf);
        String memoryBefore = TestAccess.memoryIdentity(buf);
        int maxCapacity = buf.maxCapacity();

        assertThat(buf.capacity(1500)).isSameAs(buf);

        assertThat(buf.capacity()).isEqualTo(1500);
        assertThat(TestAccess.reservedBytes(buf)).as("the 1,536-byte class").isEqualTo(1536);
        assertThat(TestAccess.memoryIdentity(buf)).isNotEqualTo(memoryBefore);
        assertThat(TestAccess.magByteBuf(buf)).isSameAs(object);
        assertThat(buf.refCnt()).isEqualTo(2);
        assertThat(buf.maxCapacity()).isEqualTo(maxCapacity);
        assertBytesKept(buf, 100, 1500);
        assertThat(buf.release(2)).isTrue();
        assertThatThrownBy(buf::release).isInstanceOf(IllegalReferenceCountException.class);
    }

    @Test
    void aShrinkThatSavesLessThanHalfKeepsTheMemory() {
        ByteBuf buf = filled(true, 1024, 0, 600);
        String memoryBefore = TestAccess.memoryIdentity(buf);
        buf.capacity(600); // the 640-byte class would save less than half of 1,024
        assertThat(buf.capacity()).isEqualTo(600);
        assertThat(TestAccess.reservedBytes(buf)).isEqualTo(1024);
        assertThat(TestAccess.memoryIdentity(buf)).isEqualTo(memoryBefore);
        assertBytesKept(buf, 0, 600);
        buf.capacity(512); // the 512-byte class: exactly half
        assertThat(TestAccess.reservedBytes(buf)).isEqualTo(512);
        assertBytesKept(buf, 0, 512);
        buf.release();
    }

    @Test
    void theIndicesAreCutToTheNewCapacity() {
        ByteBuf buf = filled(false, 8 * KIB, 3000, 6000);
        buf.capacity(2000);
        assertThat(buf.readerIndex()).isEqualTo(2000);
        assertThat(buf.writerIndex()).isEqualTo(2000);
        assertThat(TestAccess.reservedBytes(buf)).isEqualTo(2048);
        buf.release();
    }

    @ParameterizedTest(name = "direct={0}")
    @ValueSource(booleans = {true, false})
    void aLargeBufferGivesItsTailPagesBackInPlace(boolean direct) {
        ByteBuf buf = filled(direct, 256 * KIB, 10, 40 * KIB);
        String memoryBefore = TestAccess.memoryIdentity(buf);
        buf.capacity(40 * KIB);
        assertThat(TestAccess.memoryIdentity(buf)).as("no move").isEqualTo(memoryBefore);
        assertThat(TestAccess.reservedBytes(buf)).as("5 pages of 8 KiB").isEqualTo(40 * KIB);
        assertBytesKept(buf, 10, 40 * KIB);
        LargeChunk chunk = (LargeChunk) TestAccess.magByteBuf(buf).memory();
        ByteBuf neighbour = buffer(direct, 200 * KIB);
        assertThat(TestAccess.magByteBuf(neighbour).memory()).as("the freed pages serve the next request")
            .isSameAs(chunk);
        assertThat(TestAccess.magByteBuf(neighbour).offset()).isEqualTo(TestAccess.magByteBuf(buf).offset() + 40 * KIB);
        buf.release();
        neighbour.release();
        ByteBuf whole = buffer(direct, 256 * KIB);
        assertThat(TestAccess.magByteBuf(whole).memory()).as("both runs came back whole").isSameAs(chunk);
        whole.release();
    }

    @Test
    void aLargeBufferKeepsPagesInPlaceBelowTheSizeClassesWhereTheyWasteAtMostAQuarter() {
        ByteBuf buf = filled(true, 64 * KIB, 0, 30_000);
        String memoryBefore = TestAccess.memoryIdentity(buf);
        buf.capacity(30_000); // 4 pages: 2,768 bytes more than asked, less than a quarter
        assertThat(TestAccess.memoryIdentity(buf)).as("no move, no copy").isEqualTo(memoryBefore);
        assertThat(TestAccess.reservedBytes(buf)).isEqualTo(32 * KIB);
        assertBytesKept(buf, 0, 30_000);
        buf.release();
        ByteBuf small = filled(true, 64 * KIB, 0, 10_000);
        small.capacity(10_000); // 2 pages would waste 6,384 bytes: the 10,240-byte class instead
        assertThat(TestAccess.magByteBuf(small).memory()).isInstanceOf(SizeClassChunk.class);
        assertThat(TestAccess.reservedBytes(small)).isEqualTo(10_240);
        assertBytesKept(small, 0, 10_000);
        small.release();
    }

    @ParameterizedTest(name = "direct={0}")
    @ValueSource(booleans = {true, false})
    void aLargeBufferShrinkingIntoTheSizeClassesMoves(boolean direct) {
        ByteBuf buf = filled(direct, 64 * KIB, 0, 1460);
        buf.capacity(1460);
        assertThat(TestAccess.magByteBuf(buf).memory()).isInstanceOf(SizeClassChunk.class);
        assertThat(TestAccess.reservedBytes(buf)).isEqualTo(1536);
        assertBytesKept(buf, 0, 1460);
        buf.release();
    }

    /**
     * On an event loop a size-classed segment keeps its own object in its slot. A move lends that object's segment to
     * the shrinking buffer (an object of another home) and frees the large memory through the slot's object; the
     * object then takes its segment back, so the next allocation of that segment reuses it (no garbage per cut read
     * buffer), and never while the shrunk buffer still holds the segment.
     */
    @Test
    void aLargeBufferShrinkingIntoTheSizeClassesLeavesTheSegmentsObjectInItsSlot() throws Exception {
        EventLoopThreads.runToEnd(() -> {
            ByteBuf first = allocator.directBuffer(1460);
            MagByteBuf slotObject = TestAccess.magByteBuf(first);
            BufferMemory chunk = slotObject.memory();
            int segment = slotObject.segment();
            first.release(); // LIFO: the next 1,460-byte allocation takes this segment again

            ByteBuf shrunk = filled(true, 64 * KIB, 0, 1460).capacity(1460);
            MagByteBuf shrunkObject = TestAccess.magByteBuf(shrunk);
            assertThat(shrunkObject.memory()).as("the shrink moved into the freed segment").isSameAs(chunk);
            assertThat(shrunkObject.segment()).isEqualTo(segment);
            assertThat(shrunkObject).as("the buffer object stays").isNotSameAs(slotObject);

            List<ByteBuf> whileHeld = new ArrayList<>();
            for (int i = 0; i < 10; i++) { // fewer than a chunk's segments: the chunk stays current
                ByteBuf other = allocator.directBuffer(1460);
                whileHeld.add(other);
                assertThat(TestAccess.magByteBuf(other)).as("the slot's object handed out while its segment is held")
                    .isNotSameAs(slotObject);
                assertThat(TestAccess.magByteBuf(other).memory() == chunk
                    && TestAccess.magByteBuf(other).segment() == segment).as("a held segment handed out").isFalse();
            }
            whileHeld.forEach(ByteBuf::release);
            assertBytesKept(shrunk, 0, 1460);
            shrunk.release();

            ByteBuf again = allocator.directBuffer(1460);
            assertThat(TestAccess.magByteBuf(again).memory()).isSameAs(chunk);
            assertThat(TestAccess.magByteBuf(again).segment()).isEqualTo(segment);
            assertThat(TestAccess.magByteBuf(again)).as("the segment's object, back in its slot").isSameAs(slotObject);
            again.release();
            return null;
        });
    }

    @Test
    void aHugeBufferMovesAndItsMemoryGoesBack() {
        ByteBuf buf = filled(true, 4096 * KIB, 0, 100 * KIB);
        assertThat(metric.hugeMemory(true)).isGreaterThanOrEqualTo(4096L * KIB);
        buf.capacity(100 * KIB);
        assertThat(metric.hugeMemory(true)).isZero();
        assertThat(TestAccess.magByteBuf(buf).memory()).isInstanceOf(LargeChunk.class);
        assertThat(TestAccess.reservedBytes(buf)).isEqualTo(104 * KIB);
        assertBytesKept(buf, 0, 100 * KIB);
        buf.release();
    }

    /**
     * A shrunk buffer released on the event loop that allocated it and on another thread, and one shrunk on another
     * thread after its event loop ended: every chunk is entirely free again afterwards (trim gives all of them back),
     * so no segment or page was lost or freed twice.
     */
    @Test
    void shrunkBuffersGoBackFromTheOwnerAnotherThreadAndAfterTheirThreadEnded() throws Exception {
        AtomicReference<ByteBuf> outlives = new AtomicReference<>();
        AtomicReference<ByteBuf> crosses = new AtomicReference<>();
        EventLoopThreads.runToEnd(() -> {
            ByteBuf own = filled(true, 16 * KIB, 0, 1000);
            own.capacity(1000);
            own.release();
            ByteBuf large = filled(true, 512 * KIB, 0, 40 * KIB);
            large.capacity(40 * KIB);
            crosses.set(large);
            ByteBuf small = filled(true, 8 * KIB, 5, 900);
            outlives.set(small);
            return null;
        });
        ByteBuf released = CompletableFuture.supplyAsync(() -> {
            crosses.get().release();
            return crosses.get();
        }).get();
        assertThat(released.refCnt()).isZero();
        ByteBuf small = outlives.get();
        assertThat(metric.endedThreadsMemory(true)).isPositive();
        small.capacity(900); // on this thread, after the event loop ended
        assertBytesKept(small, 5, 900);
        small.release();
        assertThat(metric.endedThreadsMemory(true)).as("the ended thread's chunks, all free").isZero();
        allocator.trim();
        assertThat(metric.usedDirectMemory()).as("every chunk free and given back").isZero();
    }

    @Test
    void debugModePoisonsWhatAShrinkGivesBack() {
        MagazineByteBufAllocator debug = MagazineByteBufAllocator.builder().debug(true).build();
        ByteBuf large = debug.heapBuffer(256 * KIB);
        large.setByte(200 * KIB, 1);
        byte[] slab = large.array();
        int at = large.arrayOffset() + 200 * KIB;
        large.capacity(40 * KIB);
        assertThat(slab[at]).as("a page given back, poisoned").isEqualTo(MagByteBuf.POISON);
        large.release();

        ByteBuf small = debug.heapBuffer(4 * KIB).writeBytes(new byte[3000]);
        byte[] array = small.array();
        int start = small.arrayOffset();
        small.capacity(1000);
        assertThat(array[start + 3]).as("the old segment, poisoned").isEqualTo(MagByteBuf.POISON);
        small.release();
    }
}
