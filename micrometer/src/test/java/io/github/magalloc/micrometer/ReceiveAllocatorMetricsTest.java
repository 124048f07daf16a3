package io.github.magalloc.micrometer;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.receive.RightSizingRecvByteBufAllocator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The receive allocator's counts as Micrometer counters, tagged with its id and the given tags. */
class ReceiveAllocatorMetricsTest {
    @Test
    void countersFollowTheReads() {
        RightSizingRecvByteBufAllocator receive = RightSizingRecvByteBufAllocator.builder().initial(64 * 1024).build();
        MeterRegistry registry = new SimpleMeterRegistry();
        new ReceiveAllocatorMetrics(receive, Tags.of("port", "9200")).bindTo(registry);

        EmbeddedChannel channel = new EmbeddedChannel();
        RecvByteBufAllocator.ExtendedHandle handle = receive.newHandle();
        handle.reset(channel.config());
        ByteBuf buf = handle.allocate(MagazineByteBufAllocator.builder().build());
        handle.attemptedBytesRead(buf.writableBytes());
        buf.writeBytes(new byte[1460]);
        handle.lastBytesRead(1460);
        buf.release();

        Tags tags = Tags.of("id", String.valueOf(receive.hashCode()), "port", "9200");
        assertThat(registry.get("magalloc.receive.reads").tags(tags).functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("magalloc.receive.bytes.read").tags(tags).functionCounter().count()).isEqualTo(1460);
        assertThat(registry.get("magalloc.receive.capacity.allocated").tags(tags).functionCounter().count())
            .isEqualTo(64 * 1024);
        assertThat(registry.get("magalloc.receive.capacity.cut").tags(tags).functionCounter().count())
            .isEqualTo(64 * 1024 - 1460);
        channel.close();
    }
}
