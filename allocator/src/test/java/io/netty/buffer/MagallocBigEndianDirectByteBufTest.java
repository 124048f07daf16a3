package io.netty.buffer;

import io.github.magalloc.MagazineByteBufAllocator;

class MagallocBigEndianDirectByteBufTest extends AbstractMagallocByteBufTest {
    @Override
    ByteBuf alloc(MagazineByteBufAllocator allocator, int length, int maxCapacity) {
        ByteBuf buffer = allocator.directBuffer(length, maxCapacity);
        org.junit.jupiter.api.Assertions.assertEquals(true, buffer.isDirect());
        return buffer;
    }
}
