package io.netty.buffer;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty's own ByteBuf contract suite ({@link AbstractPooledByteBufTest}, about 417 tests) run against magalloc
 * buffers. Lives in {@code io.netty.buffer} because the suite's helpers are package-private.
 *
 * <p>Every test of every subclass uses the one long-lived {@link MagazineByteBufAllocator#DEFAULT}, as users do
 * and as Netty's own pooled suites use {@code PooledByteBufAllocator.DEFAULT}: tests run concurrently (Netty's test
 * jar turns on parallel execution), so each sees the others' recycled buffer objects and memory.
 */
abstract class AbstractMagallocByteBufTest extends AbstractPooledByteBufTest {
    final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.DEFAULT;

    @Override
    protected final ByteBuf alloc(int length, int maxCapacity) {
        return alloc(allocator, length, maxCapacity);
    }

    abstract ByteBuf alloc(MagazineByteBufAllocator allocator, int length, int maxCapacity);

    /**
     * Same intent as Netty's test, which reads {@code PooledByteBuf.maxLength} and {@code handle}: a pooled buffer
     * can write past its capacity up to the memory reserved for it without moving, moves when it writes one byte
     * more, and never reports more fast-writable bytes than its max capacity allows.
     */
    @Test
    @Override
    public void testMaxFastWritableBytes() {
        ByteBuf buffer = newBuffer(150, 500).writerIndex(100);
        assertEquals(50, buffer.writableBytes());
        assertEquals(150, buffer.capacity());
        assertEquals(500, buffer.maxCapacity());
        assertEquals(400, buffer.maxWritableBytes());
        int reserved = TestAccess.reservedBytes(buffer);
        assertTrue(reserved >= 150);
        int remainingInAlloc = Math.min(reserved - 100, 400);
        assertEquals(remainingInAlloc, buffer.maxFastWritableBytes());
        String memoryBefore = TestAccess.memoryIdentity(buffer);
        buffer.writeBytes(new byte[remainingInAlloc]);
        assertEquals(memoryBefore, TestAccess.memoryIdentity(buffer));
        assertEquals(0, buffer.maxFastWritableBytes());
        buffer.writeByte(7);
        assertNotEquals(memoryBefore, TestAccess.memoryIdentity(buffer));
        buffer.capacity(500);
        assertEquals(500 - buffer.writerIndex(), buffer.maxFastWritableBytes());
        buffer.release();
    }

    /** Same intent as Netty's test (which reads {@code PooledByteBuf.handle}): growth within the reservation is in place. */
    @Test
    @Override
    public void testEnsureWritableDoesntGrowTooMuch() {
        ByteBuf buffer = newBuffer(150, 500).writerIndex(100);
        assertEquals(50, buffer.writableBytes());
        int fastWritable = buffer.maxFastWritableBytes();
        assertTrue(fastWritable > 50);
        String memoryBefore = TestAccess.memoryIdentity(buffer);
        buffer.ensureWritable(fastWritable - 20, false);
        assertEquals(memoryBefore, TestAccess.memoryIdentity(buffer));
        buffer.ensureWritable(fastWritable, false);
        assertEquals(memoryBefore, TestAccess.memoryIdentity(buffer));
        buffer.ensureWritable(fastWritable + 1, false);
        assertNotEquals(memoryBefore, TestAccess.memoryIdentity(buffer));
        buffer.release();
    }
}
