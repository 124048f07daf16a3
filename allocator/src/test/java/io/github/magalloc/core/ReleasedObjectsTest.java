package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.BufferMemory;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The owner's released objects, handed out first (protocol 5 (buffer objects), {@link ReleasedObjects}): an object
 * kept there and also in its segment's slot is handed out once, and nothing kept outlives its chunk.
 */
class ReleasedObjectsTest extends OneMagazineTest {
    ReleasedObjectsTest() {
        super(MagazineByteBufAllocator.builder().build());
        magazine.releasedFirstFrom(0); // the first release finds at least 0 in use, no tick fewer: every release keeps
    }

    /**
     * The owner's first release chooses released objects first when the bound of segments is in use; a tick that
     * finds fewer than half of it in use turns that off for good and forgets what was kept (the hot path then hands
     * out slot objects only).
     */
    @Test
    void releasedObjectsComeFirstFromTheFirstReleaseUntilATickFindsFewSegmentsInUse() {
        int bound = 2 * segments;
        magazine.releasedFirstFrom(bound);
        List<MagByteBuf> first = fillOneChunk();
        List<MagByteBuf> second = fillOneChunk();
        MagByteBuf third = allocate(); // a third chunk: 2 * segments + 1 in use
        assertThat(magazine.objectReuse()).as("before the first release").isEqualTo(ObjectReuse.UNDECIDED);
        first.remove(first.size() - 1).release();
        assertThat(magazine.objectReuse()).as("%d segments in use, bound %d", bound + 1, bound)
            .isEqualTo(ObjectReuse.RELEASED_FIRST);
        assertThat(magazine.released.size()).as("kept").isEqualTo(1);
        magazine.decayTick();
        assertThat(magazine.objectReuse()).as("%d segments in use", bound).isEqualTo(ObjectReuse.RELEASED_FIRST);

        // One buffer stays in each chunk, so that no retirement forgets the kept objects before the tick does.
        while (first.size() > 1) {
            first.remove(first.size() - 1).release();
        }
        while (second.size() > 1) {
            second.remove(second.size() - 1).release();
        }
        assertThat(magazine.objectReuse()).as("only a tick decides").isEqualTo(ObjectReuse.RELEASED_FIRST);
        assertThat(magazine.released.size()).as("kept").isEqualTo(ReleasedObjects.CAPACITY);
        magazine.decayTick();
        assertThat(magazine.objectReuse()).as("3 segments in use, bound %d", bound).isEqualTo(ObjectReuse.SEGMENTS_OWN);
        assertThat(magazine.released.size()).as("kept objects after turning off").isZero();

        third.release();
        assertThat(magazine.released.size()).as("kept while off").isZero();
        List<MagByteBuf> more = new ArrayList<>();
        while (more.size() <= bound) {
            more.add(allocate());
        }
        magazine.decayTick();
        assertThat(magazine.objectReuse()).as("on again").isEqualTo(ObjectReuse.SEGMENTS_OWN);
        more.forEach(MagByteBuf::release);
        first.forEach(MagByteBuf::release);
        second.forEach(MagByteBuf::release);
    }

    /** With fewer segments in use at the first release, every allocation hands out the segment's own object. */
    @Test
    void aFirstReleaseWithFewSegmentsInUseKeepsNothing() {
        magazine.releasedFirstFrom(2 * segments);
        MagByteBuf buf = allocate();
        buf.release();
        assertThat(magazine.objectReuse()).isEqualTo(ObjectReuse.SEGMENTS_OWN);
        assertThat(magazine.released.size()).isZero();
        assertThat(allocate()).as("the segment's own object").isSameAs(buf);
    }

    /**
     * The released object is still its free segment's slot object. When the next allocation must refill, the refill
     * picks that very chunk and segment; taking the slot's object there as well as the kept one would hand the object
     * out twice.
     */
    @Test
    void aRefillRightAfterAReleaseHandsTheObjectOutOnce() {
        List<MagByteBuf> first = fillOneChunk();
        List<MagByteBuf> second = fillOneChunk();
        SizeClassChunk secondChunk = (SizeClassChunk) second.get(0).memory();
        assertThat(secondChunk).isNotSameAs(first.get(0).memory());
        assertThat(secondChunk.freeCount).as("the current chunk is full").isZero();

        MagByteBuf released = first.get(3);
        released.release(); // the first chunk, parked full, has one free segment; its object is kept
        MagByteBuf a = allocate(); // the refill takes the first chunk back
        MagByteBuf b = allocate(); // and the next one a new chunk
        MagByteBuf c = allocate(); // from the new chunk, where a kept object would come first

        assertThat(a).as("the kept object comes first").isSameAs(released);
        assertThat(b).as("the kept object handed out a second time").isNotSameAs(a);
        assertThat(c).as("the kept object handed out a second time").isNotSameAs(a);
        List<MagByteBuf> live = new ArrayList<>();
        for (MagByteBuf buf : first) {
            if (buf != released) { // by identity: ByteBuf.equals compares contents
                live.add(buf);
            }
        }
        live.addAll(second);
        live.add(a);
        live.add(b);
        live.add(c);
        assertDistinct(live);
    }

    /** The release that retires a chunk forgets every kept object, so none holds the chunk once it left. */
    @Test
    void aRetirementForgetsTheKeptObjects() {
        List<MagByteBuf> first = fillOneChunk();
        MagByteBuf current = allocate(); // a new current chunk: the first is parked, and retires at its last release
        BufferMemory firstChunk = first.get(0).memory();
        first.forEach(MagByteBuf::release);
        assertThat(((SizeClassChunk) firstChunk).lpMagazine()).as("retired").isNull();
        assertThat(magazine.released.size()).as("objects kept after their chunk retired").isZero();
        assertThat(current.refCnt()).isEqualTo(1);
    }

    /**
     * Seeded random work on an event loop, as the allocator runs it: allocations of several classes, releases by the
     * owner and by another thread, growth (a move). After every step no two live buffers share an object or a
     * segment, and every buffer keeps what was written into it.
     */
    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {1, 2, 3})
    void noObjectOrSegmentIsLiveTwice(long seed) throws Exception {
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
        EventLoopThreads.runToEnd(() -> {
            SplittableRandom random = new SplittableRandom(seed);
            int[] sizes = {100, 700, 1500, 3000, 9000};
            List<ByteBuf> live = new ArrayList<>();
            Map<MagByteBuf, Integer> tags = new IdentityHashMap<>();
            keepingMagazineOfThisLoop(allocator);
            for (int step = 0; step < 20_000; step++) {
                int op = random.nextInt(10);
                if (op < 5 || live.isEmpty()) {
                    ByteBuf buf = allocator.directBuffer(sizes[random.nextInt(sizes.length)]);
                    MagByteBuf object = TestAccess.magByteBuf(buf);
                    assertThat(tags.containsKey(object)).as("step %d: a live object handed out again", step).isFalse();
                    tags.put(object, step);
                    buf.writeInt(step);
                    live.add(buf);
                } else {
                    ByteBuf buf = live.remove(random.nextInt(live.size()));
                    MagByteBuf object = TestAccess.magByteBuf(buf);
                    if (op == 9) {
                        buf.writeZero(buf.capacity() + 1); // grows: moves to a larger segment
                        assertThat(TestAccess.magByteBuf(buf)).isSameAs(object);
                        live.add(buf);
                        continue;
                    }
                    assertThat(buf.getInt(0)).as("step %d: the buffer kept its contents", step)
                        .isEqualTo(tags.remove(object));
                    if (op >= 7) {
                        CompletableFuture.runAsync(buf::release).join(); // a plain thread: the remote path
                    } else {
                        buf.release();
                    }
                }
                assertDistinctSegments(live, step);
            }
            live.forEach(ByteBuf::release);
            return null;
        });
    }

    /**
     * Growth brings another event loop's object into this loop's chunk; this loop's release of it must not keep it,
     * or this loop would hand out an object whose home is the other loop's slot.
     */
    @Test
    void anObjectGrownInFromAnotherEventLoopIsNotKept() throws Exception {
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
        ByteBuf buf = EventLoopThreads.bufferOfAnEndedEventLoop(allocator, 256);
        MagByteBuf othersObject = TestAccess.magByteBuf(buf);
        EventLoopThreads.runToEnd(() -> {
            ThreadMagazine mine = keepingMagazineOfThisLoop(allocator);
            buf.writeZero(256).writeZero(512); // grows into this event loop's chunk
            assertThat(((SizeClassChunk) TestAccess.magByteBuf(buf).memory()).lpMagazine()).isSameAs(mine);
            buf.release(); // a kept object would be the next allocation's
            ByteBuf next = allocator.directBuffer(256);
            assertThat(TestAccess.magByteBuf(next)).as("another thread's object handed out").isNotSameAs(othersObject);
            next.release();
            return null;
        });
    }

    /** On an event loop: this loop's magazine, which hands out released objects first whatever its ticks see. */
    private static ThreadMagazine keepingMagazineOfThisLoop(MagazineByteBufAllocator allocator) {
        ByteBuf first = allocator.directBuffer(100);
        ThreadMagazine magazine = (ThreadMagazine) ((SizeClassChunk) TestAccess.magByteBuf(first).memory())
            .lpMagazine();
        magazine.releasedFirstFrom(0); // its first release finds at least 0 segments in use, no tick fewer
        first.release();
        return magazine;
    }

    private List<MagByteBuf> fillOneChunk() {
        List<MagByteBuf> bufs = new ArrayList<>();
        MagByteBuf probe = allocate();
        bufs.add(probe);
        SizeClassChunk chunk = (SizeClassChunk) probe.memory();
        while (chunk.freeCount > 0) {
            MagByteBuf buf = allocate();
            assertThat(buf.memory()).isSameAs(chunk);
            bufs.add(buf);
        }
        return bufs;
    }

    private static void assertDistinct(List<MagByteBuf> live) {
        IdentityHashMap<MagByteBuf, Boolean> seen = new IdentityHashMap<>();
        for (MagByteBuf buf : live) {
            assertThat(seen.put(buf, true)).as("an object live twice").isNull();
        }
    }

    private static void assertDistinctSegments(List<ByteBuf> live, int step) {
        IdentityHashMap<BufferMemory, HashSet<Integer>> segments = new IdentityHashMap<>();
        IdentityHashMap<MagByteBuf, Boolean> objects = new IdentityHashMap<>();
        for (ByteBuf buf : live) {
            MagByteBuf object = TestAccess.magByteBuf(buf);
            assertThat(objects.put(object, true)).as("step %d: an object live twice", step).isNull();
            if (object.memory() instanceof SizeClassChunk) {
                boolean added = segments.computeIfAbsent(object.memory(), m -> new HashSet<>()).add(object.segment());
                assertThat(added).as("step %d: a segment live twice", step).isTrue();
            }
        }
    }
}
