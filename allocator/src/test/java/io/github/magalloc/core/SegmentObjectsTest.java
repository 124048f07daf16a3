package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.BufferMemory;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Thread magazines give each segment its own buffer object ({@link SizeClassChunk}, "Segments' own buffer
 * objects"). These tests run on event-loop threads, where that path is taken, and check the two ways an object
 * could end up in two hands: growth moving an object's memory away from its segment, and a retired chunk going to
 * another thread's magazine.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SegmentObjectsTest {
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    /** With no ticks, a parked chunk goes to the reuse pool at its last release (none is kept for the next refill). */
    private final MagazineByteBufAllocator unticked = MagazineByteBufAllocator.builder().decayMillis(0).build();

    /**
     * Growth allocates the new memory with a temporary object and frees the old memory through it
     * ({@link MemoryPool#reallocate}): every byte must arrive, and every old segment and page run must go back, so
     * that once the loop has ended and the allocator trims, nothing is held. Seeded random growth steps across the
     * size classes and into large chunks, several buffers live at once.
     */
    @Test
    void growthKeepsEveryByteAndGivesEveryOldSegmentBack() throws Exception {
        long seed = 20261124L;
        EventLoopThreads.runToEnd(() -> {
            java.util.Random random = new java.util.Random(seed);
            List<ByteBuf> live = new ArrayList<>();
            for (int round = 0; round < 500; round++) {
                ByteBuf buf = allocator.directBuffer(1 + random.nextInt(512));
                int target = 1 + random.nextInt(random.nextBoolean() ? 40_000 : 200_000);
                for (int i = 0; i < target; i++) {
                    buf.writeByte(i * 31 + round); // writeByte grows the buffer whenever it is full
                }
                int firstWrong = -1;
                for (int i = 0; i < target && firstWrong < 0; i++) {
                    firstWrong = buf.getByte(i) == (byte) (i * 31 + round) ? -1 : i;
                }
                assertThat(firstWrong).as("first wrong byte, seed %d round %d", seed, round).isEqualTo(-1);
                live.add(buf);
                if (live.size() > 8) {
                    live.remove(random.nextInt(live.size())).release();
                }
            }
            live.forEach(ByteBuf::release);
            return null;
        });
        allocator.trim();
        assertThat(allocator.metric().usedDirectMemory()).as("memory held after every grown buffer was released")
            .isZero();
    }

    @Test
    void anObjectWhoseMemoryGrewAwayIsNotHandedOutWithItsOldSegment() throws Exception {
        EventLoopThreads.runToEnd(() -> {
            ByteBuf grown = allocator.directBuffer(256);
            MagByteBuf object = TestAccess.magByteBuf(grown);
            int oldSegment = object.segment();
            BufferMemory oldChunk = object.memory();
            grown.writeZero(256).writeZero(512); // beyond the 256-byte segment: moves to a bigger class
            assertThat(object.memory()).as("the buffer moved").isNotSameAs(oldChunk);

            // The old segment is free again (LIFO: the next 256-byte allocation gets it) and its slot still refers
            // to the object that moved away, which is live.
            List<ByteBuf> others = new ArrayList<>();
            boolean oldSegmentSeen = false;
            for (int i = 0; i < 300; i++) {
                ByteBuf other = allocator.directBuffer(256);
                others.add(other);
                MagByteBuf otherObject = TestAccess.magByteBuf(other);
                assertThat(otherObject).as("a live buffer's object handed out again").isNotSameAs(object);
                oldSegmentSeen |= otherObject.memory() == oldChunk && otherObject.segment() == oldSegment;
            }
            assertThat(oldSegmentSeen).as("the old segment was handed out again").isTrue();
            assertThat(grown.refCnt()).isEqualTo(1);
            others.forEach(ByteBuf::release);
            grown.release();
            return null;
        });
    }

    @Test
    void anObjectGrownOnAnotherThreadIsNotHandedOutWithItsOldSegment() throws Exception {
        AtomicReference<ByteBuf> handedOver = new AtomicReference<>();
        AtomicReference<BufferMemory> oldChunk = new AtomicReference<>();
        // One event loop allocates; this (plain) thread grows the buffer, taking memory from a shared magazine, and
        // releases the new object's old memory, which is the event loop's segment; then the event loop allocates.
        ByteBuf grown;
        try (EventLoopThreads.Steps owner = new EventLoopThreads.Steps()) {
            owner.run(() -> {
                ByteBuf buf = allocator.directBuffer(256);
                handedOver.set(buf);
                oldChunk.set(TestAccess.magByteBuf(buf).memory());
            });
            grown = handedOver.get();
            MagByteBuf object = TestAccess.magByteBuf(grown);
            grown.writeZero(256).writeZero(512);
            assertThat(object.memory()).as("the buffer moved").isNotSameAs(oldChunk.get());
            owner.run(() -> {
                List<ByteBuf> others = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    ByteBuf other = allocator.directBuffer(256);
                    others.add(other);
                    assertThat(TestAccess.magByteBuf(other)).as("a live buffer's object handed out again")
                        .isNotSameAs(object);
                }
                others.forEach(ByteBuf::release);
            });
        }
        assertThat(grown.refCnt()).isEqualTo(1);
        grown.release();
    }

    @Test
    void growthOnAnotherEventLoopLeavesTheOwnersObjectOutOfTheGrowersSlots() throws Exception {
        ByteBuf buf = EventLoopThreads.bufferOfAnEndedEventLoop(allocator, 256);
        MagByteBuf othersObject = TestAccess.magByteBuf(buf);
        EventLoopThreads.runToEnd(() -> {
            buf.writeZero(256).writeZero(512); // grows into this event loop's chunk
            BufferMemory grownInto = TestAccess.magByteBuf(buf).memory();
            int segmentSize = TestAccess.reservedBytes(buf); // growth reserves more than the capacity
            buf.release(); // its new segment goes back to this event loop's chunk
            List<ByteBuf> mine = new ArrayList<>();
            boolean segmentSeen = false;
            for (int i = 0; i < 100; i++) {
                ByteBuf next = allocator.directBuffer(segmentSize);
                mine.add(next);
                segmentSeen |= TestAccess.magByteBuf(next).memory() == grownInto;
                assertThat(TestAccess.magByteBuf(next)).as("another thread's object handed out")
                    .isNotSameAs(othersObject);
            }
            assertThat(segmentSeen).as("the grown buffer's segment was handed out again").isTrue();
            mine.forEach(ByteBuf::release);
            return null;
        });
    }

    @Test
    void aRetiredChunkTakenByAnotherThreadComesWithoutTheFirstThreadsObjects() throws Exception {
        Set<MagByteBuf> firstThreadsObjects = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<BufferMemory> firstThreadsChunks = Collections.newSetFromMap(new IdentityHashMap<>());
        EventLoopThreads.runToEnd(() -> {
            List<ByteBuf> bufs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ByteBuf buf = allocator.directBuffer(256);
                bufs.add(buf);
                firstThreadsObjects.add(TestAccess.magByteBuf(buf));
                firstThreadsChunks.add(TestAccess.magByteBuf(buf).memory());
            }
            bufs.forEach(ByteBuf::release);
            return null;
        }); // the thread ends: its magazine retires the entirely free chunk to the reuse pool, whole

        long pooledChunks = TestAccess.pool(allocator, true).supply().reuse().pooledBytes();
        assertThat(pooledChunks).as("the chunk waits in the reuse pool").isPositive();
        EventLoopThreads.runToEnd(() -> {
            boolean reusedChunk = false;
            List<ByteBuf> bufs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ByteBuf buf = allocator.directBuffer(256);
                bufs.add(buf);
                MagByteBuf object = TestAccess.magByteBuf(buf);
                reusedChunk |= firstThreadsChunks.contains(object.memory());
                // The set is an identity set: ByteBuf.equals compares contents, and empty buffers are all equal.
                assertThat(firstThreadsObjects.contains(object)).as("another thread's object handed out").isFalse();
            }
            assertThat(reusedChunk).as("the second thread took the first thread's chunk").isTrue();
            bufs.forEach(ByteBuf::release);
            return null;
        });
    }

    @Test
    void aChunkRetiredAndTakenBackByItsOwnThreadKeepsItsObjectsUnlessItsSegmentsAreSmall() throws Exception {
        EventLoopThreads.runToEnd(() -> {
            assertThat(objectsKeptThroughTheReusePool(256)).as("256-byte segments keep their objects").isEqualTo(1.0);
            assertThat(objectsKeptThroughTheReusePool(64)).as("64-byte segments' objects are dropped").isZero();
            return null;
        });
    }

    /**
     * Fills the calling event loop's first chunk of the class and one more buffer, releases the first chunk's
     * buffers (the chunk, no longer current, retires to the reuse pool at its last release, with no ticks), then
     * allocates until the magazine takes that chunk back. Returns the share of its segments handed out with the same object as before.
     */
    private double objectsKeptThroughTheReusePool(int size) {
        List<ByteBuf> first = new ArrayList<>();
        ByteBuf probe = unticked.directBuffer(size);
        first.add(probe);
        BufferMemory chunk = TestAccess.magByteBuf(probe).memory();
        int segments = ((SizeClassChunk) chunk).segmentCount;
        for (int i = 1; i < segments; i++) {
            first.add(unticked.directBuffer(size));
        }
        ByteBuf next = unticked.directBuffer(size); // the chunk is full: a new current chunk
        assertThat(TestAccess.magByteBuf(next).memory()).isNotSameAs(chunk);
        Set<MagByteBuf> before = Collections.newSetFromMap(new IdentityHashMap<>());
        first.forEach(b -> before.add(TestAccess.magByteBuf(b)));
        long pooledBefore = TestAccess.pool(unticked, true).supply().reuse().pooledBytes();
        first.forEach(ByteBuf::release);
        assertThat(TestAccess.pool(unticked, true).supply().reuse().pooledBytes()).as("retired to the reuse pool")
            .isEqualTo(pooledBefore + chunk.slab.size);

        List<ByteBuf> again = new ArrayList<>();
        int fromChunk = 0;
        int kept = 0;
        while (fromChunk < segments) {
            ByteBuf buf = unticked.directBuffer(size);
            again.add(buf);
            MagByteBuf object = TestAccess.magByteBuf(buf);
            if (object.memory() == chunk) {
                fromChunk++;
                kept += before.contains(object) ? 1 : 0;
            }
            assertThat(again.size()).as("the chunk came back from the pool").isLessThan(4 * segments);
        }
        again.forEach(ByteBuf::release);
        next.release();
        return (double) kept / segments;
    }
}
