package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads without a magazine of their own share one stripe (protocol 2 (stripes)) and each allocate and release one
 * 256-byte buffer at a time, so every allocation and every release contends for the stripe's lock, and at most 4 of
 * a chunk's 256 segments are live: the chunk is nearly always almost entirely free. Any exception out of
 * {@code directBuffer()} or {@code release()} fails the run (two threads in the stripe's lists at once, a segment
 * handed out twice, a chunk retired while in use).
 */
class SharedMagazineContentionTest {
    @Test
    void threadsSharingAMagazineAllocateAndReleaseWithoutErrors() throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        for (int run = 0; run < 10; run++) {
            List<Throwable> errors = SharedPathTest.runThreads(() -> {
                for (int i = 0; i < 100_000; i++) {
                    ByteBuf buf = alloc.directBuffer(256);
                    buf.writeLong(i);
                    buf.release();
                }
            });
            assertThat(errors).as("run %d", run).isEmpty();
        }
    }
}
