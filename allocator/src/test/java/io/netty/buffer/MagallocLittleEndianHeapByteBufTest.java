package io.netty.buffer;

import io.github.magalloc.MagazineByteBufAllocator;

class MagallocLittleEndianHeapByteBufTest extends AbstractMagallocByteBufTest {
    // Netty's suite runs its tests on little-endian buffers made with the deprecated order(ByteOrder), as here.
    @SuppressWarnings("deprecation")
    @Override
    ByteBuf alloc(MagazineByteBufAllocator allocator, int length, int maxCapacity) {
        ByteBuf buffer = allocator.heapBuffer(length, maxCapacity).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        org.junit.jupiter.api.Assertions.assertEquals(false, buffer.isDirect());
        return buffer;
    }
}
