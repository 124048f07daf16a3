package io.github.magalloc.core;

import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DirectMemoryRelease} against what Netty does with memory it frees, seen from the JDK's count of direct
 * memory: a freed buffer that the JDK still counts waits for the garbage collector, so freeing it is not cheap.
 * Memory the JDK never counted (Netty's own malloc) or stops counting at once is freed at once. CI runs this on
 * JDK 17 (Unsafe: freed at once) and on JDK 25 with Netty's defaults (freed by the GC). Not told apart here: an
 * older Netty on JDK 25 frees through a shared arena at once but at a high cost, which this test would call cheap.
 *
 * <p>The JDK's count is global: other tests' frees (and the cleaners of buffers the collector found, and the reuse
 * pools' purges) move it too. So the test runs isolated from the other tests, and decides with margins of half its
 * size, which no background free between two reads a few microseconds apart comes near.
 */
@Isolated("reads the JDK's global count of direct memory")
class DirectMemoryReleaseTest {
    private static final int SIZE = 32 << 20;

    @Test
    void cheapExactlyWhenNettyGivesFreedMemoryBackAtOnce() {
        BufferPoolMXBean jdkDirect = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
        long before = jdkDirect.getMemoryUsed();
        CleanableDirectBuffer buffer = PlatformDependent.allocateDirect(SIZE);
        long allocated = jdkDirect.getMemoryUsed() - before;
        buffer.clean();
        long heldAfterFree = jdkDirect.getMemoryUsed() - before;
        boolean waitsForTheCollector = allocated >= SIZE && heldAfterFree >= SIZE / 2;
        assertThat(DirectMemoryRelease.IS_CHEAP)
            .as("JDK-counted bytes: %d after allocate, %d after free", allocated, heldAfterFree)
            .isEqualTo(!waitsForTheCollector);
    }
}
