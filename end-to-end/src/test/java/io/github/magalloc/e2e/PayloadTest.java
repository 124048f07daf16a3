package io.github.magalloc.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PayloadTest {
    @Test
    void filledBodyVerifiesForEverySizeAroundWordBoundaries() {
        for (int size = 0; size <= 70; size++) {
            ByteBuf buf = Unpooled.buffer();
            Payload.fill(buf, 99, size);
            assertThat(Payload.verify(buf, 99, size)).as("size %d", size).isNull();
            buf.release();
        }
    }

    @Test
    void anySingleWrongByteIsCaught() {
        int size = 1000;
        ByteBuf buf = Unpooled.buffer(size);
        Payload.fill(buf, 5, size);
        for (int i = 0; i < size; i++) {
            byte b = buf.getByte(i);
            buf.setByte(i, b ^ 0x01);
            assertThat(Payload.verify(buf, 5, size)).as("flipped byte %d", i).startsWith("crc32c");
            buf.setByte(i, b);
        }
        assertThat(Payload.verify(buf, 5, size)).isNull();
        buf.release();
    }

    @Test
    void wrongLengthOrSeedIsCaught() {
        ByteBuf buf = Unpooled.buffer();
        Payload.fill(buf, 1, 100);
        assertThat(Payload.verify(buf, 1, 101)).startsWith("length");
        assertThat(Payload.verify(buf, 2, 100)).startsWith("crc32c");
        buf.release();
    }

    @Test
    void checksumDoesNotMoveIndexesAndWorksOnComposites() {
        ByteBuf a = Unpooled.buffer();
        Payload.fill(a, 3, 300);
        ByteBuf composite = Unpooled.wrappedBuffer(a.retainedSlice(0, 100), a.retainedSlice(100, 200));
        assertThat(Payload.crc(composite)).isEqualTo(Payload.expectedCrc(3, 300));
        assertThat(composite.readerIndex()).isZero();
        composite.release();
        a.release();
    }
}
