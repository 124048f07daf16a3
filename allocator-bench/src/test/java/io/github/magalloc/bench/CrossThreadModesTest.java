package io.github.magalloc.bench;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.AllocatorKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The diagnostic runs on both kinds of threads and hands every buffer back; its numbers are not checked. */
class CrossThreadModesTest {
    @Test
    @Timeout(60)
    void printsOneLinePerSecondAndASummaryAndReleasesEveryBuffer() throws Exception {
        for (Workers workers : Workers.PLATFORM) {
            MagazineByteBufAllocator allocator = new MagazineByteBufAllocator(true);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CrossThreadModes.run(allocator, 2, workers, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            String out = bytes.toString(StandardCharsets.UTF_8);
            assertThat(out).contains("served as an event loop): " + (workers == Workers.EVENT_LOOP));
            assertThat(out).contains("own magazines): " + (workers == Workers.EVENT_LOOP));
            assertThat(out).containsPattern("(?m)^ +1 +[0-9.]+ +[0-9.]+$").containsPattern("(?m)^ +2 +[0-9.]+ +[0-9.]+$");
            assertThat(out).contains("round trip below");
            allocator.trim();
            assertThat(AllocatorKind.usedMemory(allocator)).as(workers + ": memory still held").isZero();
        }
    }
}
