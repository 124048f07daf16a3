package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Direct memory exhausted. Runs in its own surefire execution with {@code -XX:MaxDirectMemorySize=8m}
 * (stress-tests/pom.xml), one allocator per test. The calling thread is a plain thread (shared magazines); the
 * thread-local path runs on an event-loop thread. Each test exhausts memory on one path (size classes, large,
 * huge, growth), checks the error names the problem, that nothing taken before the failure is lost (after
 * releasing everything and {@code trim()}, nothing is held), and that service is normal afterwards.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DirectMemoryExhaustionTest {
    private static final int SIZE = 1024;
    /**
     * Every allocator of the class, reachable until the class ends: a dropped allocator's pool is freed by the JVM's
     * cleaner after a collection, at a moment no test chooses, and a test that sizes a request from the memory in use
     * must not see memory come back under it.
     */
    private static final List<MagazineByteBufAllocator> KEPT = new ArrayList<>();

    private static MagazineByteBufAllocator kept(MagazineByteBufAllocator alloc) {
        KEPT.add(alloc);
        return alloc;
    }

    @Test
    @Order(1)
    void clearOutOfMemoryErrorAndAllMemoryBackAfterRelease() {
        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
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
     * A refill that fails with OutOfMemoryError leaves the magazine as it was: the exhausted chunk is parked only once
     * its replacement exists (design.md, "Refill and the places of a chunk"). A refill that parked it first would leave
     * it both current and listed; later refills would list it again and {@code trim()} would fail on the lists. Here:
     * after the error, the same amount again, each buffer's bytes intact, and {@code trim()} gives everything back.
     */
    @Test
    @Order(2)
    void normalServiceOnceMemoryIsReleased() {
        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
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
     * The same rule seen from the memory: if a refill parked the exhausted current chunk C before taking a new slab,
     * and taking the slab threw OutOfMemoryError, C would stay {@code current[sizeClass]} while parked; once entirely
     * free, {@code trim()} would retire it and free its slab while allocations still take its segments: live buffers
     * in freed memory. After the error, a release, one allocation and {@code trim()}, a new buffer must live in a
     * chunk that exists and in memory the allocator holds.
     */
    @Test
    @Order(3)
    void chunkParkedByAFailedRefillIsNotUsedAfterItsRetirement() {
        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
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
        alloc.trim();
        assertThat(metric.usedDirectMemory()).isZero();
    }

    @Test
    @Order(4)
    void threadLocalMagazineOutOfMemory() throws Exception {
        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread eventLoop = new DefaultThreadFactory("oom-loop").newThread(() -> {
            try {
                List<ByteBuf> held = new ArrayList<>();
                OutOfMemoryError error = fillUntilOutOfMemory(alloc, held, SIZE);
                assertThat(error.getMessage()).contains("magalloc: cannot allocate");
                assertThat(alloc.metric().threadLocalMagazines(true)).isEqualTo(1);
                releaseAll(held);
                for (int i = 0; i < 2_000; i++) {
                    held.add(alloc.directBuffer(SIZE).writeInt(i));
                }
                for (int i = 0; i < held.size(); i++) {
                    assertThat(held.get(i).getInt(0)).isEqualTo(i);
                }
                releaseAll(held);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        eventLoop.start();
        eventLoop.join();
        assertThat(failure.get()).isNull();
        assertThat(alloc.metric().endedThreadsMemory(true)).isZero();
        alloc.trim();
        assertThat(alloc.metric().usedDirectMemory()).isZero();
    }

    @Test
    @Order(5)
    void largeBuffersOutOfMemory() {
        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
        List<ByteBuf> held = new ArrayList<>();
        OutOfMemoryError error = fillUntilOutOfMemory(alloc, held, 100 * 1024);
        assertThat(error.getMessage()).contains("magalloc: cannot allocate").contains("direct memory");
        assertThat(held).isNotEmpty();
        releaseAll(held);
        held.add(alloc.directBuffer(100 * 1024).writeLong(7));
        assertThat(held.get(0).getLong(0)).isEqualTo(7);
        releaseAll(held);
        alloc.trim();
        assertThat(alloc.metric().usedDirectMemory()).isZero();
    }

    @Test
    @Order(6)
    void hugeBuffersOutOfMemory() {
        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
        List<ByteBuf> held = new ArrayList<>();
        OutOfMemoryError error = fillUntilOutOfMemory(alloc, held, 2 << 20); // above the pooling limit
        assertThat(error.getMessage()).contains("magalloc: cannot allocate " + (2 << 20) + " bytes");
        assertThat(alloc.metric().hugeMemory(true)).isEqualTo((long) held.size() << 21);
        releaseAll(held);
        assertThat(alloc.metric().hugeMemory(true)).isZero();
        assertThat(alloc.metric().usedDirectMemory()).isZero();
        alloc.directBuffer(2 << 20).release();
    }

    /**
     * A request within a cache line of the int limit: the slab's alignment padding must not overflow the size into a
     * negative one (which fails with an IllegalArgumentException that names nothing); it is an ordinary
     * out-of-memory, and the allocator serves normally afterwards.
     */
    @Test
    @Order(6)
    void hugeRequestAtTheIntLimitIsAClearOutOfMemory() {
        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
        int size = Integer.MAX_VALUE - 8;
        assertThatThrownBy(() -> alloc.directBuffer(size, Integer.MAX_VALUE))
            .isInstanceOf(OutOfMemoryError.class)
            .hasMessageContaining("magalloc: cannot allocate " + size + " bytes");
        assertThat(alloc.metric().usedDirectMemory()).isZero();
        alloc.directBuffer(2 << 20).release();
    }

    @Test
    @Order(7)
    void growthOutOfMemoryLeavesTheBufferAsItWas() {
        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
        ByteBuf grown = alloc.directBuffer(SIZE, 16 << 20);
        for (int i = 0; i < SIZE / 4; i++) {
            grown.writeInt(i);
        }
        List<ByteBuf> held = new ArrayList<>();
        fillUntilOutOfMemory(alloc, held, 64 * 1024);
        assertThatThrownBy(() -> grown.capacity(4 << 20)).isInstanceOf(OutOfMemoryError.class);
        assertThat(grown.capacity()).isEqualTo(SIZE);
        assertThat(grown.refCnt()).isEqualTo(1);
        for (int i = 0; i < SIZE / 4; i++) {
            assertThat(grown.getInt(i * 4)).isEqualTo(i);
        }
        releaseAll(held);
        grown.capacity(4 << 20); // now it fits
        assertThat(grown.getInt(SIZE - 4)).isEqualTo(SIZE / 4 - 1);
        assertThat(grown.release()).isTrue();
        alloc.trim();
        assertThat(alloc.metric().usedDirectMemory()).isZero();
    }

    /**
     * The direct memory limit is the JVM's: what another allocator's reuse pool holds (its excess kept for a delay,
     * here an hour) gives way to an allocation that finds the limit reached (protocol 9 (making room)). The request fits
     * only once half that excess is gone. It is sized from the memory in use, so no other memory may come back while
     * it runs: the earlier tests' pools hold nothing (each ends with a trim, and stays reachable), and the slabs their
     * trims freed have had their arenas closed (JDK 22+: a background close would otherwise answer the request).
     */
    @Test
    @Order(8)
    void anotherAllocatorsPooledMemoryGivesWay() {
        int chunkBytes = SizeClasses.chunkSizeOf(SizeClasses.indexOf(SIZE));
        long budget = 4L * chunkBytes;
        MagazineByteBufAllocator holder = kept(MagazineByteBufAllocator.builder().reuseBudgetBytes(budget)
            .decayMillis(3_600_000).build());
        holder.attachCurrentThread();
        try {
            List<ByteBuf> held = new ArrayList<>();
            for (int i = 0; i < chunkBytes / SIZE * 8; i++) {
                held.add(holder.directBuffer(SIZE));
            }
            releaseAll(held); // the chunks that empty go to the holder's pool, above its budget up to its ceiling
        } finally {
            holder.detachCurrentThread();
        }
        long excess = holder.metric().pooledFreeMemory(true) - budget;
        assertThat(excess).as("the holder's excess").isGreaterThan(1024);
        assertThat(holder.metric().slabsFreed(true)).as("the holder's slabs freed (closes that could make room)")
            .isZero();

        MagazineByteBufAllocator alloc = kept(MagazineByteBufAllocator.builder().build());
        closeEveryPendingArena();
        for (ChunkSupply pool : MakingRoom.DIRECT.pools()) {
            assertThat(pool.unclosedArenaBytes()).as("bytes waiting for an arena's close").isZero();
        }
        for (MagazineByteBufAllocator earlier : KEPT) {
            if (earlier != holder) {
                assertThat(earlier.metric().usedDirectMemory()).as("an earlier test's pool").isZero();
            }
        }
        long free = PlatformDependent.maxDirectMemory() - PlatformDependent.usedDirectMemory();
        int size = (int) (free + excess / 2);
        assertThat(size).as("a huge request").isGreaterThan(alloc.config().maxPooledSize());
        ByteBuf huge = alloc.directBuffer(size);
        assertThat(huge.capacity()).isEqualTo(size);
        assertThat(holder.metric().pooledFreeMemory(true)).as("the holder's pool after making room")
            .isLessThanOrEqualTo(budget + excess / 2);
        assertThat(huge.release()).isTrue();
    }

    /** Closes what every pool freed and queued for a close, and waits for the closes in progress to return. */
    private static void closeEveryPendingArena() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a bound, not a timing: closes take ms
        for (ChunkSupply pool : MakingRoom.DIRECT.pools()) {
            while (pool.closeOnePendingArena() > 0) {
                // closed one
            }
            pool.awaitArenaCloses(deadline);
        }
    }

    private static OutOfMemoryError fillUntilOutOfMemory(MagazineByteBufAllocator alloc, List<ByteBuf> held) {
        return fillUntilOutOfMemory(alloc, held, SIZE);
    }

    private static OutOfMemoryError fillUntilOutOfMemory(MagazineByteBufAllocator alloc, List<ByteBuf> held,
                                                         int size) {
        for (int i = 0; i < 1_000_000; i++) {
            try {
                held.add(alloc.directBuffer(size));
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
