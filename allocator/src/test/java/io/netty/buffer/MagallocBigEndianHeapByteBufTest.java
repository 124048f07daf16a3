package io.netty.buffer;

import io.github.magalloc.MagazineByteBufAllocator;

class MagallocBigEndianHeapByteBufTest extends AbstractMagallocByteBufTest {
    @Override
    ByteBuf alloc(MagazineByteBufAllocator allocator, int length, int maxCapacity) {
        ByteBuf buffer = allocator.heapBuffer(length, maxCapacity);
        org.junit.jupiter.api.Assertions.assertEquals(false, buffer.isDirect());
        return buffer;
    }
}
