package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.buffer.BufferMemory;
import io.github.magalloc.buffer.MagByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The local free list, the remote queue, refills and retirement, driven through one magazine. */
class SizeClassChunkTest extends OneMagazineTest {
    SizeClassChunkTest() {
        super(MagazineByteBufAllocator.builder().build());
    }

    @Test
    void fillsAChunkWithDistinctSegmentsThenTakesANewOne() {
        Set<Integer> offsets = new HashSet<>();
        MagByteBuf first = allocate();
        for (int i = 1; i < segments; i++) {
            MagByteBuf buf = allocate();
            assertThat(buf.memory()).isSameAs(first.memory());
            assertThat(offsets.add(buf.offset())).isTrue();
        }
        assertThat(offsets.add(first.offset())).isTrue();
        assertThat(pool.metrics().chunkActivations(sizeClass)).isEqualTo(1);
        MagByteBuf next = allocate();
        assertThat(next.memory()).isNotSameAs(first.memory());
        assertThat(pool.metrics().chunkActivations(sizeClass)).isEqualTo(2);
    }

    @Test
    void ownerReleaseIsLastInFirstOut() {
        MagByteBuf a = allocate();
        MagByteBuf b = allocate();
        int offsetOfA = a.offset();
        a.release();
        MagByteBuf c = allocate();
        assertThat(c.offset()).isEqualTo(offsetOfA);
        assertThat(b.offset()).isNotEqualTo(offsetOfA);
    }

    @Test
    void refillTakesThePartialChunkThatHasWaitedLongest() {
        List<MagByteBuf> first = new ArrayList<>();
        List<MagByteBuf> second = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            first.add(allocate());
        }
        for (int i = 0; i < segments; i++) {
            second.add(allocate());
        }
        for (int i = 0; i < segments; i++) {
            allocate(); // a third chunk, now current and full
        }
        BufferMemory firstChunk = first.get(0).memory();
        BufferMemory secondChunk = second.get(0).memory();
        assertThat(secondChunk).isNotSameAs(firstChunk);
        first.get(0).release();  // the first chunk becomes partial ...
        second.get(0).release(); // ... before the second
        second.get(1).release();

        assertThat(allocate().memory()).as("oldest partial chunk first").isSameAs(firstChunk);
        assertThat(allocate().memory()).as("then the next one").isSameAs(secondChunk);
    }

    @Test
    void foreignReleaseGoesThroughTheRemoteQueueAndIsCollectedAtRefill() throws Exception {
        List<MagByteBuf> all = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            all.add(allocate());
        }
        SizeClassChunk chunk = (SizeClassChunk) all.get(0).memory();
        assertThat(chunk.freeCount).isZero();
        Thread releaser = new Thread(() -> all.get(7).release());
        releaser.start();
        releaser.join();
        assertThat(chunk.remoteFrees.size()).isEqualTo(1);
        assertThat(chunk.freeCount).as("owner-only list untouched by the foreign thread").isZero();
        MagByteBuf reused = allocate();
        assertThat(reused.memory()).isSameAs(chunk);
        assertThat(reused.offset()).isEqualTo(chunk.offsetOf(7));
        assertThat(pool.metrics().chunkActivations(sizeClass)).isEqualTo(1);
    }

    @Test
    void aChunkThatEmptiesWhileNotCurrentIsRetiredToTheReusePool() {
        List<MagByteBuf> firstChunk = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            firstChunk.add(allocate());
        }
        allocate(); // moves the magazine to a second chunk
        assertThat(pool.metrics().activeChunks(sizeClass)).isEqualTo(2);
        long pooledBefore = pool.supply().reuse().pooledBytes();
        for (MagByteBuf buf : firstChunk) {
            buf.release();
        }
        assertThat(pool.metrics().activeChunks(sizeClass)).isEqualTo(1);
        assertThat(pool.supply().reuse().pooledBytes()).isEqualTo(pooledBefore + SizeClasses.chunkSizeOf(sizeClass));
    }

    @Test
    void theCurrentChunkIsNeverRetired() {
        MagByteBuf only = allocate();
        SizeClassChunk chunk = (SizeClassChunk) only.memory();
        only.release();
        assertThat(chunk.isEntirelyFree()).isTrue();
        assertThat(pool.metrics().activeChunks(sizeClass)).isEqualTo(1);
        assertThat(allocate().memory()).isSameAs(chunk);
    }

    @Test
    void remotelyEmptiedChunksAreFoundByTheNextScan() throws Exception {
        List<MagByteBuf> firstChunk = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            firstChunk.add(allocate());
        }
        SizeClassChunk first = (SizeClassChunk) firstChunk.get(0).memory();
        List<MagByteBuf> secondChunk = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            secondChunk.add(allocate());
        }
        Thread releaser = new Thread(() -> firstChunk.forEach(MagByteBuf::release));
        releaser.start();
        releaser.join();
        assertThat(first.remoteFrees.size()).isEqualTo(segments);
        // The second chunk is full: the refill scans the others, drains the first and makes it current.
        MagByteBuf next = allocate();
        assertThat(next.memory()).isSameAs(first);
        assertThat(pool.metrics().chunkActivations(sizeClass)).isEqualTo(2);
    }

    @Test
    void pushingMoreSegmentsThanTheChunkHasIsADoubleFree() {
        MagByteBuf buf = allocate();
        SizeClassChunk chunk = (SizeClassChunk) buf.memory();
        buf.release();
        for (int i = 0; i < segments - 1; i++) {
            chunk.allocateSegment();
        }
        // All segments but one are "handed out"; give back every one of them plus one that was never handed out.
        for (int i = 0; i < segments - 1; i++) {
            chunk.pushLocal(i);
        }
        assertThatThrownBy(() -> chunk.pushLocal(0)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("released more often than allocated");
    }

    @Test
    void remoteQueueOverflowIsADoubleFree() {
        MagByteBuf buf = allocate();
        SizeClassChunk chunk = (SizeClassChunk) buf.memory();
        for (int i = 0; i < segments; i++) {
            chunk.releaseRemote(i);
        }
        assertThatThrownBy(() -> chunk.releaseRemote(0)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("double free");
        chunk.remoteFrees.drainTo(new int[segments], 0, segments); // leave the chunk consistent for cleanup
    }

    @Test
    void everyFreedSegmentIsReusedBeforeANewSlabIsTaken() throws Exception {
        List<MagByteBuf> bufs = new ArrayList<>();
        for (int i = 0; i < segments * 4; i++) {
            bufs.add(allocate());
        }
        assertThat(pool.metrics().chunkActivations(sizeClass)).isEqualTo(4);
        java.util.Random random = new java.util.Random(42);
        java.util.Collections.shuffle(bufs, random);
        List<MagByteBuf> releasedHere = bufs.subList(0, segments);
        List<MagByteBuf> releasedElsewhere = bufs.subList(segments, segments * 2);
        releasedHere.forEach(MagByteBuf::release);
        Thread releaser = new Thread(() -> releasedElsewhere.forEach(MagByteBuf::release));
        releaser.start();
        releaser.join();
        // Two chunks' worth of segments, scattered over four chunks, half of them freed by another thread.
        for (int i = 0; i < segments * 2; i++) {
            allocate();
        }
        assertThat(pool.metrics().chunkActivations(sizeClass)).as("no new slab while freed segments exist").isEqualTo(4);
        allocate();
        assertThat(pool.metrics().chunkActivations(sizeClass)).isEqualTo(5);
    }

    @Test
    void retiredChunksAreReusedWholeForTheirClassAndReCutForOthers() {
        List<MagByteBuf> firstChunk = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            firstChunk.add(allocate());
        }
        SizeClassChunk first = (SizeClassChunk) firstChunk.get(0).memory();
        List<MagByteBuf> second = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            second.add(allocate());
        }
        firstChunk.forEach(MagByteBuf::release); // retired whole into the reuse pool
        long slabsBefore = pool.metrics().slabsAllocated();
        for (int i = 0; i < segments; i++) {
            second.add(allocate()); // the second chunk is full: the retired first one comes back as it was
        }
        assertThat(second.get(second.size() - 1).memory()).isSameAs(first);
        assertThat(pool.metrics().slabsAllocated()).isEqualTo(slabsBefore);

        // An empty 1 KiB chunk's slab (64 KiB) is re-cut for the 2 KiB class instead of taking a new slab.
        second.forEach(MagByteBuf::release);
        allocate();
        long pooled = pool.supply().reuse().pooledBytes();
        assertThat(pooled).isPositive();
        MagByteBuf other = keep(magazine.allocate(SizeClasses.indexOf(2048), 2048, 2048));
        assertThat(pool.metrics().slabsAllocated()).isEqualTo(slabsBefore);
        assertThat(pool.supply().reuse().pooledBytes()).isEqualTo(pooled - other.memory().slab.size);
    }

    // ------------------------------------------------------------------ protocol 1a (foreign release marks)

    @Test
    void aForeignReleaseMarksItsClassAndTheLookThatCollectsItClearsTheMark() throws Exception {
        List<MagByteBuf> firstChunk = fillTheCurrentChunk();
        SizeClassChunk first = (SizeClassChunk) firstChunk.get(0).memory();
        fillTheCurrentChunk();
        assertThat(magazine.lvForeignReleaseMarked(sizeClass)).as("owner-only work marks nothing").isFalse();
        Thread releaser = new Thread(() -> firstChunk.get(3).release());
        releaser.start();
        releaser.join();
        assertThat(magazine.lvForeignReleaseMarked(sizeClass)).as("marked by the foreign release").isTrue();

        MagByteBuf next = allocate(); // no partial chunk: the marked class's full chunks are looked at
        assertThat(next.memory()).isSameAs(first);
        assertThat(next.offset()).isEqualTo(first.offsetOf(3));
        assertThat(magazine.lvForeignReleaseMarked(sizeClass)).as("cleared by the look").isFalse();
    }

    /** The look is skipped while the class is not marked: a full chunk is then not even read. */
    @Test
    void aRefillOfAnUnmarkedClassDoesNotLookAtTheFullChunks() {
        List<MagByteBuf> firstChunk = fillTheCurrentChunk();
        SizeClassChunk first = (SizeClassChunk) firstChunk.get(0).memory();
        fillTheCurrentChunk();
        // A segment in the first chunk's queue with no mark: only the queue, as no releaser would leave it.
        assertThat(first.remoteFrees.offer(firstChunk.get(3).segment())).isTrue();

        assertThat(allocate().memory()).as("unmarked: a new chunk serves").isNotSameAs(first);
        fillTheCurrentChunk();
        magazine.markForeignRelease(sizeClass);
        MagByteBuf found = allocate();
        assertThat(found.memory()).as("marked: the look finds it").isSameAs(first);
        assertThat(found.offset()).isEqualTo(first.offsetOf(3));
    }

    /**
     * A releaser that claimed a slot and has not published its segment yet: the chunk parked full with the claim
     * marks its class, a look that finds the claim still unpublished marks it again, and the look after the segment
     * is published collects it.
     */
    @Test
    void aClaimNotYetPublishedKeepsItsClassMarkedUntilALookCollectsIt() {
        List<MagByteBuf> firstChunk = fillTheCurrentChunk();
        SizeClassChunk first = (SizeClassChunk) firstChunk.get(0).memory();
        MpscIntQueue queue = first.remoteFrees;
        long claimed = queue.lvProducerIndex();
        assertThat(queue.casProducerIndex(claimed, claimed + 1)).as("the stalled releaser's claim").isTrue();

        assertThat(allocate().memory()).as("nothing published: a new chunk").isNotSameAs(first);
        assertThat(magazine.lvForeignReleaseMarked(sizeClass)).as("parked full with a claim").isTrue();

        fillTheCurrentChunk();
        assertThat(allocate().memory()).as("still nothing published").isNotSameAs(first);
        assertThat(magazine.lvForeignReleaseMarked(sizeClass)).as("marked again by the look").isTrue();

        queue.slots[(int) (claimed & queue.mask)] = firstChunk.get(3).segment(); // the releaser publishes
        fillTheCurrentChunk();
        MagByteBuf found = allocate();
        assertThat(found.memory()).isSameAs(first);
        assertThat(found.offset()).isEqualTo(first.offsetOf(3));
        assertThat(magazine.lvForeignReleaseMarked(sizeClass)).isFalse();
    }

    /** Allocates until the current chunk has no free segment; returns the buffers it took (all live). */
    private List<MagByteBuf> fillTheCurrentChunk() {
        List<MagByteBuf> taken = new ArrayList<>();
        do {
            taken.add(allocate());
        } while (magazine.current(sizeClass).freeCount > 0);
        return taken;
    }
}
