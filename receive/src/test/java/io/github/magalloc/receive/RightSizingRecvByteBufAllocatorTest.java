package io.github.magalloc.receive;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The right-sizing receive allocator as a channel's read loop drives it (allocate, attempted bytes, the read, last
 * bytes read): its bounds, how a channel's guess follows its reads, and the cut of each read buffer.
 */
class RightSizingRecvByteBufAllocatorTest {
    private final MagazineByteBufAllocator magalloc = MagazineByteBufAllocator.builder().build();
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final ChannelConfig config = channel.config();
    private final List<ByteBuf> held = new ArrayList<>();

    @AfterEach
    void release() {
        held.forEach(ByteBuf::release);
        channel.close();
    }

    /** One read of {@code bytes} (at most the buffer's room), as a channel does it; the buffer the pipeline gets. */
    private ByteBuf read(RecvByteBufAllocator.ExtendedHandle handle, int bytes) {
        ByteBuf buf = handle.allocate(magalloc);
        handle.attemptedBytesRead(buf.writableBytes());
        int n = Math.min(bytes, buf.writableBytes());
        for (int i = 0; i < n; i++) {
            buf.writeByte(i);
        }
        handle.lastBytesRead(n);
        handle.incMessagesRead(1);
        held.add(buf);
        return buf;
    }

    /** Bytes magalloc reserved for the buffer (leak detection may wrap it). */
    private static int reservedBytes(ByteBuf buffer) {
        ByteBuf b = buffer;
        while (!(b instanceof MagByteBuf)) {
            b = b.unwrap();
        }
        return ((MagByteBuf) b).reservedBytes();
    }

    @Test
    void theDefaultsAreNettysAdaptiveBounds() {
        RightSizingRecvByteBufAllocator allocator = new RightSizingRecvByteBufAllocator();
        assertThat(allocator.minimum()).isEqualTo(64);
        assertThat(allocator.initial()).isEqualTo(2048);
        assertThat(allocator.maximum()).isEqualTo(64 * 1024);
        assertThat(allocator.newHandle()).isInstanceOf(RecvByteBufAllocator.ExtendedHandle.class);
    }

    @Test
    void theBuilderRoundsToTheTableAndRejectsBadBounds() {
        RightSizingRecvByteBufAllocator allocator = RightSizingRecvByteBufAllocator.builder().minimum(100)
            .initial(1460).maximum(500 * 1024).build();
        assertThat(allocator.minimum()).isEqualTo(128);
        assertThat(allocator.initial()).isEqualTo(1536);
        assertThat(allocator.maximum()).isEqualTo(384 * 1024);
        assertThatThrownBy(() -> RightSizingRecvByteBufAllocator.builder().minimum(0).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minimum 0");
        assertThatThrownBy(() -> RightSizingRecvByteBufAllocator.builder().initial(64 * 1024).maximum(1024).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initial 65536, maximum 1024");
        assertThatThrownBy(() -> RightSizingRecvByteBufAllocator.builder().maximum(Integer.MAX_VALUE).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maximum 2147483647");
    }

    /** A minimum and maximum with no size of the table between them: no guess could keep both, a clear error. */
    @Test
    void boundsWithNoSizeBetweenThemAreRejected() {
        assertThatThrownBy(() -> RightSizingRecvByteBufAllocator.builder().minimum(100).initial(100).maximum(100)
            .build()).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("minimum 100 rounds up to 128, above maximum 100");
        RightSizingRecvByteBufAllocator exact = RightSizingRecvByteBufAllocator.builder().minimum(128).initial(128)
            .maximum(128).build();
        assertThat(exact.minimum()).isEqualTo(128);
        assertThat(exact.maximum()).isEqualTo(128);
    }

    @Test
    void aReadThatFillsItsBufferDoublesTheGuessAtOnce() {
        RecvByteBufAllocator.ExtendedHandle handle = new RightSizingRecvByteBufAllocator().newHandle();
        handle.reset(config);
        assertThat(handle.guess()).isEqualTo(2048);
        read(handle, 100_000);
        assertThat(handle.guess()).as("the next read of the same loop").isEqualTo(4096);
        read(handle, 100_000);
        read(handle, 100_000);
        read(handle, 100_000);
        read(handle, 100_000);
        assertThat(handle.guess()).as("up to the maximum only").isEqualTo(64 * 1024);
    }

    @Test
    void twoSmallReadsInARowShrinkTheGuessToTheLargerOfThem() {
        RecvByteBufAllocator.ExtendedHandle handle = RightSizingRecvByteBufAllocator.builder().initial(64 * 1024).build()
            .newHandle();
        handle.reset(config);
        read(handle, 1460);
        assertThat(handle.guess()).as("one small read is not enough").isEqualTo(64 * 1024);
        read(handle, 2920);
        assertThat(handle.guess()).as("the class of 2,920 bytes").isEqualTo(3072);
        read(handle, 2000);
        read(handle, 2000);
        assertThat(handle.guess()).as("2,000 is more than half of 3,072").isEqualTo(3072);
        read(handle, 100);
        read(handle, 10);
        assertThat(handle.guess()).as("never below the minimum").isEqualTo(128);
    }

    @Test
    void aReadBufferFilledAtMostHalfIsCutToItsBytesBeforeThePipelineSeesIt() {
        RightSizingRecvByteBufAllocator allocator = RightSizingRecvByteBufAllocator.builder().initial(64 * 1024)
            .build();
        RecvByteBufAllocator.ExtendedHandle handle = allocator.newHandle();
        handle.reset(config);
        ByteBuf small = read(handle, 1460);
        assertThat(small.capacity()).isEqualTo(1460);
        assertThat(small.readableBytes()).isEqualTo(1460);
        assertThat(reservedBytes(small)).as("the 1,536-byte class, not 64 KiB").isEqualTo(1536);
        for (int i = 0; i < 1460; i++) {
            assertThat(small.getByte(i)).isEqualTo((byte) i);
        }
        ByteBuf full = read(handle, 100_000);
        assertThat(full.capacity()).as("filled: left as it is").isEqualTo(64 * 1024);
        assertThat(allocator.metric()).isEqualTo(new ReceiveMetric(2, 1460 + 64 * 1024, 2 * 64 * 1024,
            64 * 1024 - 1460));
    }

    @Test
    void anEmptyReadIsNotCountedAndItsBufferNotTouched() {
        RightSizingRecvByteBufAllocator allocator = new RightSizingRecvByteBufAllocator();
        RecvByteBufAllocator.ExtendedHandle handle = allocator.newHandle();
        handle.reset(config);
        ByteBuf buf = handle.allocate(magalloc);
        held.add(buf);
        handle.attemptedBytesRead(buf.writableBytes());
        handle.lastBytesRead(-1);
        assertThat(buf.capacity()).isEqualTo(2048);
        assertThat(allocator.metric()).isEqualTo(new ReceiveMetric(0, 0, 2048, 0));
    }
}
