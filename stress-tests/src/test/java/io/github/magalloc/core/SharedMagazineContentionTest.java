package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bug 1 of docs/reliability.md in ordinary use (fixed): threads without a magazine of their own share one
 * magazine and each allocate and release one 256-byte buffer at a time. Every release to a shared magazine is
 * remote, and at most 4 of a chunk's 256 segments are live, so the chunk is nearly always almost entirely free.
 * The former bounded refill scan could revisit such a chunk, retire it although it was about to return it, and
 * throw {@code ArrayIndexOutOfBoundsException} out of {@code directBuffer()} (3 runs in 4).
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
