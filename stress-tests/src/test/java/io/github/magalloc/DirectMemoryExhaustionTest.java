package io.github.magalloc;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Direct memory exhausted. Runs in its own surefire execution with {@code -XX:MaxDirectMemorySize=8m}
 * (stress-tests/pom.xml), one allocator per test. The calling thread is a plain thread, so it always uses the
 * same shared magazine.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DirectMemoryExhaustionTest {
    private static final int SIZE = 1024;

    @Test
    @Order(1)
    void clearOutOfMemoryErrorAndAllMemoryBackAfterRelease() {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        List<ByteBuf> held = new ArrayList<>();
        OutOfMemoryError error = fillUntilOutOfMemory(alloc, held);
        assertThat(error.getMessage())
            .contains("magalloc: cannot allocate").contains("direct memory").contains("MaxDirectMemorySize");
        assertThat(held.size()).as("buffers served before exhaustion").isGreaterThan(1_000);
        releaseAll(held);
        alloc.trim();
        assertThat(alloc.metric().usedDirectMemory()).isZero();
    }

    /**
     * Found a bug (fixed, see docs/reliability.md): a refill that failed with OutOfMemoryError had already parked the
     * exhausted chunk, which stayed {@code current[sizeClass]} as well; it was later listed twice and the next
     * trim() threw ArrayIndexOutOfBoundsException from ChunkList.remove.
     */
    @Test
    @Order(2)
    void normalServiceOnceMemoryIsReleased() {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        List<ByteBuf> held = new ArrayList<>();
        fillUntilOutOfMemory(alloc, held);
        releaseAll(held);
        // Normal service: the same amount again, each buffer's own bytes intact, and trim works.
        for (int i = 0; i < 2_000; i++) {
            held.add(alloc.directBuffer(SIZE).writeInt(i).writeZero(SIZE - 4));
        }
        for (int i = 0; i < held.size(); i++) {
            assertThat(held.get(i).getInt(0)).isEqualTo(i);
        }
        releaseAll(held);
        alloc.trim();
        assertThat(alloc.metric().usedDirectMemory()).isZero();
    }

    /**
     * Found a bug (fixed, see docs/reliability.md): Magazine.refill parked the exhausted current chunk C in its
     * list of other chunks ({@code current = false}) before taking a new slab; when taking the slab throws
     * OutOfMemoryError, {@code current[sizeClass]} still points at C. Later allocations keep using C as current
     * although it is also listed; once it is entirely free, trim() (or a scan) retires it and frees its slab,
     * while {@code current[sizeClass]} still hands out its segments: live buffers in freed memory.
     */
    @Test
    @Order(3)
    void chunkParkedByAFailedRefillIsNotUsedAfterItsRetirement() {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        MagazineByteBufAllocatorMetric metric = alloc.metric();
        int sizeClass = SizeClasses.indexOf(SIZE);
        List<ByteBuf> held = new ArrayList<>();
        fillUntilOutOfMemory(alloc, held);
        releaseAll(held);
        alloc.directBuffer(SIZE).release(); // served by the parked chunk, through its remote frees
        alloc.trim(); // retires every entirely free listed chunk, the parked one included, and frees the slabs

        ByteBuf buf = alloc.directBuffer(SIZE);
        try {
            // A live buffer must live in a chunk that exists and in memory the allocator holds.
            assertThat(metric.activeChunks(true, sizeClass)).as("chunks of the live buffer's class").isPositive();
            assertThat(metric.usedDirectMemory()).as("direct memory held while a buffer is live").isPositive();
        } finally {
            // Not released on purpose if the assertions failed: its memory was freed.
            if (metric.activeChunks(true, sizeClass) > 0) {
                buf.release();
            }
        }
    }

    private static OutOfMemoryError fillUntilOutOfMemory(MagazineByteBufAllocator alloc, List<ByteBuf> held) {
        for (int i = 0; i < 1_000_000; i++) {
            try {
                held.add(alloc.directBuffer(SIZE));
            } catch (OutOfMemoryError e) {
                return e;
            }
        }
        throw new AssertionError("no OutOfMemoryError after " + held.size() + " buffers");
    }

    private static void releaseAll(List<ByteBuf> held) {
        for (ByteBuf buf : held) {
            assertThat(buf.release()).isTrue();
        }
        held.clear();
    }
}
