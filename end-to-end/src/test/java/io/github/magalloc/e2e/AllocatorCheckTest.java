package io.github.magalloc.e2e;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AllocatorCheckTest {
    private final ByteBufAllocator magalloc = new MagazineByteBufAllocator(true);
    private final AllocatorCheck check = new AllocatorCheck(magalloc);

    @Test
    void buffersOfTheAllocatorAndTheirSlicesAndDuplicatesPass() {
        ByteBuf buf = magalloc.directBuffer(64).writeZero(64);
        try {
            check.check(buf, "buffer");
            check.check(buf.slice(8, 16), "slice");
            check.check(buf.duplicate(), "duplicate");
            check.check(buf.retainedSlice(0, 8).asReadOnly(), "read-only slice");
        } finally {
            buf.release(buf.refCnt());
        }
        assertThat(check.checked()).isEqualTo(4);
        assertThat(check.foreign()).isZero();
    }

    @Test
    void aBufferFromElsewhereOrACompositeMixingAllocatorsIsForeign() {
        ByteBuf other = Unpooled.directBuffer(64).writeZero(64);
        ByteBuf own = magalloc.directBuffer(64).writeZero(64);
        CompositeByteBuf mixed = magalloc.compositeDirectBuffer().addComponents(true, own.retain(), other.retain());
        try {
            check.check(other, "socket");
            check.check(mixed, "request");
        } finally {
            mixed.release();
            other.release();
            own.release();
        }
        assertThat(check.checked()).isEqualTo(2);
        assertThat(check.foreign()).isEqualTo(2);
        assertThat(check.foreignSamples()).contains("socket: ").contains("request: ");
    }

    @Test
    void emptyBuffersAreNotCounted() {
        check.check(Unpooled.EMPTY_BUFFER, "empty");
        assertThat(check.checked()).isZero();
    }
}
