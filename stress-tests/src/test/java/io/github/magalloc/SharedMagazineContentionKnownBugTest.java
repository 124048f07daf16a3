package io.github.magalloc;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * KNOWN BUG 1 (docs/reliability.md, "Open bugs") in ordinary use: threads without a magazine of their own share
 * one magazine and each allocate and release one 256-byte buffer at a time. Every release to a shared magazine
 * is remote, and at most 4 of a chunk's 256 segments are live, so the chunk is nearly always almost entirely
 * free. A refill's first drain stops at a slot a releasing thread has claimed but not yet published; the scan
 * then revisits the same chunk, finds it entirely free, retires it although it is {@code best}, and throws
 * {@code ArrayIndexOutOfBoundsException} from {@code ChunkList.remove} (ChunkList.java:30 via :75) out of
 * {@code directBuffer()}.
 */
@Tag("known-bug")
class SharedMagazineContentionKnownBugTest {
    @Test
    void threadsSharingAMagazineAllocateAndReleaseWithoutErrors() throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        for (int run = 0; run < 30; run++) {
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
