package io.github.magalloc.receive;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The periodic flight-recorder event of a receive allocator, recorded with the settings file users are told of. */
class ReceiveStatisticsEventTest {
    @Test
    void aRecordingWithMagallocsSettingsHasTheCounts(@TempDir Path dir) throws Exception {
        RightSizingRecvByteBufAllocator receive = RightSizingRecvByteBufAllocator.builder().initial(64 * 1024).build();
        EmbeddedChannel channel = new EmbeddedChannel();
        Path file = dir.resolve("receive.jfr");
        try (Recording recording = new Recording(Configuration.create(Path.of("..", "docs", "magalloc.jfc")))) {
            // Once more when the recording ends, rather than every 10 s.
            recording.enable("magalloc.ReceiveStatistics").with("period", "endChunk");
            recording.start();
            RecvByteBufAllocator.ExtendedHandle handle = receive.newHandle();
            handle.reset(channel.config());
            ByteBuf buf = handle.allocate(MagazineByteBufAllocator.builder().build());
            handle.attemptedBytesRead(buf.writableBytes());
            buf.writeBytes(new byte[1460]);
            handle.lastBytesRead(1460);
            buf.release();
            recording.stop();
            recording.dump(file);
        }
        channel.close();
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
            .filter(e -> e.getEventType().getName().equals("magalloc.ReceiveStatistics"))
            .filter(e -> e.getInt("receiveAllocatorId") == receive.hashCode())
            .collect(Collectors.toList());
        assertThat(events).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getLong("reads")).isEqualTo(1);
            assertThat(e.getLong("bytesRead")).isEqualTo(1460);
            assertThat(e.getLong("capacityAllocated")).isEqualTo(64 * 1024);
            assertThat(e.getLong("capacityCutBack")).isEqualTo(64 * 1024 - 1460);
        });
    }
}
