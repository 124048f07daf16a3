package io.netty.buffer;

import io.github.magalloc.MagazineByteBufAllocator;

class MagallocLittleEndianDirectByteBufTest extends AbstractMagallocByteBufTest {
    @Override
    ByteBuf alloc(MagazineByteBufAllocator allocator, int length, int maxCapacity) {
        ByteBuf buffer = allocator.directBuffer(length, maxCapacity).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        org.junit.jupiter.api.Assertions.assertEquals(true, buffer.isDirect());
        return buffer;
    }
}
