package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.Slab;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The protocols' assertions (docs/design.md, "Conventions") fire when their invariant is broken: each test breaks one
 * on purpose, as a bug would, and expects the {@link AssertionError} at the next step that checks it. The tests run
 * with {@code -ea}, as every test of the module does; without it there is nothing to see, and they skip.
 */
class ProtocolAssertionsTest {
    private static final int SIZE = 1024;
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final MemoryPool pool = TestAccess.pool(allocator, false);
    private final int sizeClass = SizeClasses.indexOf(SIZE);

    @BeforeAll
    static void assertionsAreOn() {
        boolean on = false;
        assert on = true;
        assumeTrue(on, "run with -ea: the assertions under test are off");
    }

    private SizeClassChunk chunk(Magazine magazine) {
        return new SizeClassChunk(Slab.heap(SizeClasses.chunkSizeOf(sizeClass)), pool.supply().context, magazine, sizeClass);
    }

    @Test
    void aPopBeyondTheCountingEquationFires() {
        ThreadMagazine magazine = new ThreadMagazine(pool.supply(), Thread.currentThread(), m -> MagazineDecay.NONE);
        SizeClassChunk bound = chunk(magazine);
        SizeClassChunk plain = chunk(magazine);
        for (SizeClassChunk chunk : new SizeClassChunk[] {bound, plain}) {
            // All segments free, and two queued as well: freeCount + |remoteFrees| > segmentCount after a pop.
            chunk.remoteFrees.offer(0);
            chunk.remoteFrees.offer(1);
        }
        assertThatThrownBy(() -> bound.allocateBound(new SegmentSlot())).isInstanceOf(AssertionError.class)
            .hasMessageContaining("counting invariant broken");
        assertThatThrownBy(plain::allocateSegment).isInstanceOf(AssertionError.class)
            .hasMessageContaining("counting invariant broken");
    }

    @Test
    void aRemoteReleaseBeyondTheSegmentCountFires() {
        ThreadMagazine magazine = new ThreadMagazine(pool.supply(), Thread.currentThread(), m -> MagazineDecay.NONE);
        SizeClassChunk chunk = chunk(magazine);
        // The queue's capacity is the segment count; a queue whose indexes went wrong holds more, and shows it.
        for (int segment = 0; segment < chunk.segmentCount - 1; segment++) {
            chunk.remoteFrees.offer(segment);
        }
        setField(MpscIntQueue.class, "consumerIndex", chunk.remoteFrees, -2, true);
        assertThatThrownBy(() -> chunk.releaseRemote(0)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("more queued than segments");
    }

    @Test
    void aStripesMirrorAboveTheCountFiresAtTheNextMove() {
        Stripe stripe = new Stripe(pool.supply());
        SizeClassChunk chunk = chunk(stripe);
        stripe.park(chunk);
        chunk.svParkedFreeCount(chunk.freeCount + 1); // the copy above the count it copies
        assertThatThrownBy(() -> stripe.onPlaceChanged(chunk)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("parked mirror");
    }

    @Test
    void aLargeChunksBrokenCountFiresAtTheNextAllocation() {
        ThreadMagazine magazine = new ThreadMagazine(pool.supply(), Thread.currentThread(), m -> MagazineDecay.NONE);
        LargeChunk chunk = new LargeChunk(Slab.heap(8 * LargeChunk.PAGE_SIZE), pool.supply(), magazine, 0,
            new RoomWord());
        assertThat(chunk.allocate(LargeChunk.PAGE_SIZE)).isZero();
        setField(LargeChunk.class, "usedPageCount", chunk, 8, false); // all pages used by the count, one by the bitmap
        assertThatThrownBy(() -> chunk.allocate(LargeChunk.PAGE_SIZE)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("large chunk counts broken");
    }

    /** Writes an int (or, with {@code isLong}, a long) field of {@code owner} declared by {@code type} or above. */
    private static void setField(Class<?> type, String name, Object owner, long value, boolean isLong) {
        try {
            Class<?> declaring = type;
            while (java.util.Arrays.stream(declaring.getDeclaredFields()).noneMatch(f -> f.getName().equals(name))) {
                declaring = declaring.getSuperclass();
            }
            Field field = declaring.getDeclaredField(name);
            field.setAccessible(true);
            if (isLong) {
                field.setLong(owner, value);
            } else {
                field.setInt(owner, (int) value);
            }
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
