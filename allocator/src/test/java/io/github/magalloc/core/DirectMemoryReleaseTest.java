package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;
import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link DirectMemoryRelease} against what Netty does with the memory slabs get, seen from the JDK's count of direct
 * memory: a freed buffer that the JDK still counts waits for the garbage collector. Memory the JDK never counted
 * (Netty's own malloc) or stops counting at once is freed at once: cheaply where Netty has {@code Unsafe} or native
 * access, else by closing a shared arena (JDK 25+). CI runs this on JDK 17 (Unsafe) and on JDK 25 with Netty's defaults
 * (arenas).
 *
 * <p>The JDK's count is global: other tests' frees (and the cleaners of buffers the collector found, and the reuse
 * pools' purges) move it too. So the test runs isolated from the other tests, and decides with margins of half its
 * size, which no background free between two reads a few microseconds apart comes near.
 */
@Isolated("reads the JDK's global count of direct memory")
class DirectMemoryReleaseTest {
    private static final int SIZE = 32 << 20;

    @Test
    void freedByTheCollectorExactlyWhenTheJdkStillCountsFreedMemory() {
        BufferPoolMXBean jdkDirect = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
        long before = jdkDirect.getMemoryUsed();
        CleanableDirectBuffer buffer = Slab.allocateDirectMemory(SIZE);
        long allocated = jdkDirect.getMemoryUsed() - before;
        buffer.clean();
        long heldAfterFree = jdkDirect.getMemoryUsed() - before;
        boolean waitsForTheCollector = allocated >= SIZE && heldAfterFree >= SIZE / 2;
        assertThat(DirectMemoryRelease.HERE == DirectMemoryRelease.BY_THE_COLLECTOR)
            .as("%s; JDK-counted bytes: %d after allocate, %d after free", DirectMemoryRelease.HERE, allocated,
                heldAfterFree)
            .isEqualTo(waitsForTheCollector);
    }

    /**
     * A huge direct buffer released on this thread: its memory leaves the JDK's and Netty's counts of direct memory
     * within seconds and with no garbage collection, wherever Netty can free at once (by closing its arena on the
     * background thread where that is how). Planted bug: {@code ArenaCloser} that never closes fails it on JDK 25.
     */
    @Test
    void releasedMemoryIsBackWithoutACollectionUnlessOnlyTheCollectorCanFreeIt() throws InterruptedException {
        assumeTrue(DirectMemoryRelease.HERE != DirectMemoryRelease.BY_THE_COLLECTOR,
            "Netty frees this JVM's direct memory only when the collector finds it");
        BufferPoolMXBean jdkDirect = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().reuseBudgetBytes(0).build();
        long before = directBytes(jdkDirect);
        ByteBuf huge = allocator.directBuffer(SIZE); // above maxPooledSize: its slab is freed on release
        long allocated = directBytes(jdkDirect) - before;
        assertThat(allocated).as("counted by the JDK or by Netty").isGreaterThanOrEqualTo(SIZE);
        huge.release();
        long deadline = System.nanoTime() + 60_000_000_000L; // only a bug reaches it
        long held;
        while ((held = directBytes(jdkDirect) - before) >= SIZE / 2 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(held).as("%s: bytes still counted 60 s after the release", DirectMemoryRelease.HERE)
            .isLessThan(SIZE / 2);
    }

    private static long directBytes(BufferPoolMXBean jdkDirect) {
        return jdkDirect.getMemoryUsed() + Math.max(0, PlatformDependent.usedDirectMemory());
    }
}
