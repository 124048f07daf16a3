package io.github.magalloc.receive;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cut added to other receive allocators: the wrapped allocator keeps its guesses and its messages per read, and
 * each read buffer it sized, filled at most half, reaches the pipeline cut to its bytes, whatever allocator made it.
 */
// RecvByteBufAllocator.newHandle() is declared to return the deprecated Handle type.
@SuppressWarnings("deprecation")
class ReadBufferCuttingTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();

    @Test
    void aFixed512KiBBufferFromNettysPooledAllocatorIsCutToTheBytesRead() {
        RecvByteBufAllocator cutting = ReadBufferCutting.wrap(new FixedRecvByteBufAllocator(512 * 1024));
        assertThat(cutting.newHandle()).isInstanceOf(RecvByteBufAllocator.ExtendedHandle.class);
        RecvByteBufAllocator.ExtendedHandle handle = (RecvByteBufAllocator.ExtendedHandle) cutting.newHandle();
        handle.reset(channel.config());
        assertThat(handle.guess()).as("the wrapped allocator's guess").isEqualTo(512 * 1024);
        PooledByteBufAllocator pooled = new PooledByteBufAllocator(true);
        ByteBuf buf = handle.allocate(pooled);
        handle.attemptedBytesRead(buf.writableBytes());
        buf.writeBytes(new byte[1460]);
        handle.lastBytesRead(1460);
        assertThat(buf.capacity()).isEqualTo(1460);
        assertThat(buf.readableBytes()).isEqualTo(1460);
        assertThat(handle.lastBytesRead()).isEqualTo(1460);
        assertThat(((ReceiveMetricProvider) cutting).metric())
            .isEqualTo(new ReceiveMetric(1, 1460, 512 * 1024, 512 * 1024 - 1460));
        buf.release();
    }

    @Test
    void aMaxMessagesAllocatorStaysOneSoChannelConfigsCanSetItsMessagesPerRead() {
        AdaptiveRecvByteBufAllocator adaptive = new AdaptiveRecvByteBufAllocator();
        RecvByteBufAllocator cutting = ReadBufferCutting.wrap(adaptive);
        assertThat(cutting).isInstanceOf(MaxMessagesRecvByteBufAllocator.class);
        channel.config().setRecvByteBufAllocator(cutting);
        channel.config().setMaxMessagesPerRead(7);
        assertThat(adaptive.maxMessagesPerRead()).isEqualTo(7);
        assertThat(channel.config().getMaxMessagesPerRead()).isEqualTo(7);
    }

    @Test
    void anAllocatorThatIsNotMaxMessagesIsWrappedAsItIs() {
        RecvByteBufAllocator plain = new FixedRecvByteBufAllocator(4096)::newHandle;
        RecvByteBufAllocator cutting = ReadBufferCutting.wrap(plain);
        assertThat(cutting).isNotInstanceOf(MaxMessagesRecvByteBufAllocator.class);
        assertThat(cutting.newHandle().guess()).isEqualTo(4096);
    }
}
