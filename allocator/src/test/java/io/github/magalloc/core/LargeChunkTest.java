package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.MagByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Page runs of one large chunk: first fit, reuse around live buffers, double frees, detaching. */
class LargeChunkTest {
    private static final int PAGE = LargeChunk.PAGE_SIZE;
    /** Budget 0: a slab that goes back is freed at once, so {@code slabsFreed} counts chunks given back. */
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().reuseBudgetBytes(0).build();
    private final MemoryPool pool = TestAccess.pool(allocator, false);
    private final ThreadMagazine magazine = new ThreadMagazine(pool.supply(), Thread.currentThread(), m -> MagazineDecay.NONE);

    private LargeChunk chunk(int pages) {
        pool.supply().context.metrics.largeChunkCreated(); // as a magazine's LargeChunks counts the chunks it makes
        // Alone in a room word of its own: the magazine's first fit does not see it. A page less a byte more than the
        // pages: exactly that many whole pages, also where a big heap slab is an array header short of its size.
        return new LargeChunk(pool.supply().allocateSlab(pages * PAGE + PAGE - 1), pool.supply(), magazine, 0,
            new RoomWord());
    }

    /** Lets go of {@code chunk} as its magazine does: its slab goes back if no buffer uses it. */
    private void detach(LargeChunk chunk) {
        if (chunk.detach()) {
            magazine.giveBack().largeChunk(chunk.slab);
        }
    }

    /** A buffer object holding a run of {@code pages} taken from {@code chunk}, as the magazine would make it. */
    private MagByteBuf take(LargeChunk chunk, int pages) {
        int offset = chunk.allocate(pages * PAGE);
        assertThat(offset).as("a run of %d pages", pages).isNotNegative();
        return holding(chunk, offset, pages);
    }

    /** A buffer object standing for a live buffer on the run of {@code pages} at {@code offset}. */
    private MagByteBuf holding(LargeChunk chunk, int offset, int pages) {
        MagByteBuf buf = pool.supply().context.newBufferObject(new BufferObjectCache(pool.supply().context, Thread.currentThread().getId()));
        buf.init(chunk, -1, offset, pages * PAGE, pages * PAGE, Integer.MAX_VALUE);
        return buf;
    }

    /**
     * The chunk's release as a thread other than the magazine's owner makes it, through the chunk's lock (the owner's
     * own releases may be kept for its next allocation instead: {@code ReleasedRunsTest}).
     */
    private static void giveBack(LargeChunk chunk, MagByteBuf buf) {
        chunk.release(buf, OTHER_THREAD_ID);
    }

    /** No thread's id: thread ids are positive. */
    private static final long OTHER_THREAD_ID = -1;

    @Test
    void aReleasedRunIsReusedWhileItsNeighboursStayLive() {
        LargeChunk chunk = chunk(8);
        MagByteBuf a = take(chunk, 2);
        MagByteBuf b = take(chunk, 3);
        MagByteBuf c = take(chunk, 1);
        assertThat(new int[] {a.offset(), b.offset(), c.offset()}).containsExactly(0, 2 * PAGE, 5 * PAGE);
        giveBack(chunk, b);
        assertThat(chunk.allocate(3 * PAGE)).as("b's pages, between two live buffers").isEqualTo(2 * PAGE);
        assertThat(chunk.allocate(3 * PAGE)).as("only pages 6 and 7 are free").isEqualTo(-1);
        assertThat(chunk.allocate(2 * PAGE)).isEqualTo(6 * PAGE);
    }

    @Test
    void aShrinkGivesBackExactlyTheTailPages() {
        LargeChunk chunk = chunk(8);
        MagByteBuf a = take(chunk, 8);
        chunk.shrink(a, 3 * PAGE);
        assertThat(a.reservedBytes()).isEqualTo(3 * PAGE);
        assertThat(chunk.allocate(6 * PAGE)).as("five pages are free, not six").isEqualTo(-1);
        MagByteBuf b = holding(chunk, chunk.allocate(5 * PAGE), 5);
        assertThat(b.offset()).isEqualTo(3 * PAGE);
        giveBack(chunk, a);
        assertThat(chunk.allocate(3 * PAGE)).as("the shrunk run, whole").isEqualTo(0);
        assertThatThrownBy(() -> chunk.shrink(b, 5 * PAGE)).as("no pages to give back").isInstanceOf(AssertionError.class);
    }

    @Test
    void runsCrossWordsAndTheSearchSkipsRunsTooShort() {
        LargeChunk chunk = chunk(130); // three bitmap words, the last one mostly padding
        MagByteBuf first = take(chunk, 63);
        MagByteBuf acrossWords = take(chunk, 2); // pages 63 and 64
        assertThat(acrossWords.offset()).isEqualTo(63 * PAGE);
        giveBack(chunk, first);
        assertThat(chunk.allocate(64 * PAGE)).as("pages 0-62 are one short").isEqualTo(65 * PAGE);
        assertThat(chunk.allocate(63 * PAGE)).isEqualTo(0);
        assertThat(chunk.allocate(2 * PAGE)).as("only page 129 is free; padding is never free").isEqualTo(-1);
        assertThat(chunk.allocate(PAGE)).isEqualTo(129 * PAGE);
        assertThat(chunk.allocate(PAGE)).isEqualTo(-1);
    }

    @Test
    void releasingPagesNotInUseThrowsAndChangesNothing() {
        LargeChunk chunk = chunk(4);
        MagByteBuf a = take(chunk, 2);
        MagByteBuf b = take(chunk, 2);
        giveBack(chunk, a);
        assertThatThrownBy(() -> giveBack(chunk, a)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("pages 0 to 1").hasMessageContaining("double free");
        // A stale release overlapping a live buffer is refused whole: b's pages stay in use.
        MagByteBuf stale = take(chunk, 1);
        stale.setMemory(chunk, -1, stale.offset(), 3 * PAGE); // pages 0-2: page 1 is free, page 2 is b's
        assertThatThrownBy(() -> giveBack(chunk, stale)).isInstanceOf(IllegalStateException.class);
        assertThat(chunk.allocate(PAGE)).as("page 1 only").isEqualTo(PAGE);
        assertThat(chunk.allocate(PAGE)).as("b's pages are still in use").isEqualTo(-1);
        giveBack(chunk, b);
        assertThat(chunk.allocate(2 * PAGE)).isEqualTo(2 * PAGE);
    }

    @Test
    void aDetachedChunkGoesBackWithItsLastPageExactlyOnce() {
        LargeChunk chunk = chunk(4);
        MagByteBuf a = take(chunk, 1);
        MagByteBuf b = take(chunk, 1);
        long freedBefore = pool.metrics().slabsFreed();
        long largeChunksBefore = pool.metrics().largeChunks();
        detach(chunk);
        assertThat(chunk.allocate(PAGE)).as("no allocation from a detached chunk").isEqualTo(-1);
        giveBack(chunk, a);
        assertThat(pool.metrics().slabsFreed()).as("b still uses the chunk").isEqualTo(freedBefore);
        giveBack(chunk, b);
        assertThat(pool.metrics().slabsFreed()).isEqualTo(freedBefore + 1);
        assertThat(pool.metrics().largeChunks()).isEqualTo(largeChunksBefore - 1);
    }

    @Test
    void anUnusedChunkGoesBackWhenDetached() {
        LargeChunk chunk = chunk(4);
        giveBack(chunk, take(chunk, 4));
        long freedBefore = pool.metrics().slabsFreed();
        detach(chunk);
        assertThat(pool.metrics().slabsFreed()).isEqualTo(freedBefore + 1);
    }

    @Test
    void aReleaseThatEmptiesTheChunkTellsItsMagazine() {
        LargeChunk chunk = chunk(4);
        MagByteBuf a = take(chunk, 1);
        MagByteBuf b = take(chunk, 1);
        giveBack(chunk, a);
        assertThat(magazine.lvLargeChunkEmptied()).isFalse();
        giveBack(chunk, b);
        assertThat(magazine.lvLargeChunkEmptied()).isTrue();
    }

    /** Random runs and releases against a model of first fit over an array of pages; offsets must match exactly. */
    @Test
    void matchesAFirstFitModelOverRandomOperations() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int pageCount = 1 + random.nextInt(200);
            LargeChunk chunk = chunk(pageCount);
            boolean[] used = new boolean[pageCount];
            List<MagByteBuf> live = new ArrayList<>();
            for (int op = 0; op < 2_000; op++) {
                if (!live.isEmpty() && random.nextInt(3) == 0) {
                    MagByteBuf buf = live.remove(random.nextInt(live.size()));
                    giveBack(chunk, buf);
                    for (int p = buf.offset() / PAGE; p < (buf.offset() + buf.reservedBytes()) / PAGE; p++) {
                        used[p] = false;
                    }
                    continue;
                }
                int pages = 1 + random.nextInt(Math.min(pageCount, 70));
                int expected = firstFit(used, pages);
                int offset = chunk.allocate(pages * PAGE);
                assertThat(offset).as("seed %d op %d: %d of %d pages", seed, op, pages, pageCount)
                    .isEqualTo(expected < 0 ? -1 : expected * PAGE);
                if (offset >= 0) {
                    for (int p = expected; p < expected + pages; p++) {
                        used[p] = true;
                    }
                    live.add(holding(chunk, offset, pages));
                }
            }
            live.forEach(buf -> giveBack(chunk, buf));
            assertThat(chunk.isUnused()).isTrue();
            detach(chunk);
        }
    }

    private static int firstFit(boolean[] used, int pages) {
        int run = 0;
        for (int p = 0; p < used.length; p++) {
            run = used[p] ? 0 : run + 1;
            if (run == pages) {
                return p - pages + 1;
            }
        }
        return -1;
    }
}
