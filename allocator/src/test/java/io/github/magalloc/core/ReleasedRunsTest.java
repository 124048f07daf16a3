package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.MagByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Protocol 6 (large chunks), the owner's released runs: a thread magazine's own release of a large buffer keeps the
 * run for its next allocation of the same length, which takes it back with no search; a release on another thread,
 * a run of a detached chunk, or one beyond the bounds goes back to the chunk; decay ticks, trims and the magazine's end
 * give every kept run back.
 */
class ReleasedRunsTest {
    private static final int RUN = 64 * 1024;
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().reuseBudgetBytes(0).build();
    private final MemoryPool pool = TestAccess.pool(allocator, false);
    private final ThreadMagazine magazine =
        new ThreadMagazine(pool.supply(), Thread.currentThread(), m -> MagazineDecay.NONE);

    private MagByteBuf allocate(int bytes) {
        return magazine.allocateLarge(bytes, Integer.MAX_VALUE);
    }

    @Test
    void theOwnersReleaseIsTakenBackByItsNextAllocationOfTheSameLength() {
        MagByteBuf first = allocate(RUN);
        LargeChunk chunk = (LargeChunk) first.memory();
        int offset = first.offset();
        first.release();
        assertThat(magazine.releasedRuns().keptBytes()).isEqualTo(RUN);
        assertThat(chunk.isUnused()).as("a kept run's pages stay used").isFalse();

        MagByteBuf second = allocate(RUN);
        assertThat(second.memory()).isSameAs(chunk);
        assertThat(second.offset()).isEqualTo(offset);
        assertThat(magazine.releasedRuns().keptBytes()).isZero();

        MagByteBuf other = allocate(RUN + 8192);
        second.release();
        assertThat(magazine.releasedRuns().keptBytes()).as("not the length asked for last: given back").isZero();
        other.release();
        assertThat(magazine.releasedRuns().keptBytes()).isEqualTo(RUN + 8192);
    }

    @Test
    void aReleaseOnAnotherThreadGoesBackToTheChunk() throws Exception {
        MagByteBuf buf = allocate(RUN);
        LargeChunk chunk = (LargeChunk) buf.memory();
        FutureTask<Void> release = new FutureTask<>(() -> {
            buf.release();
            return null;
        });
        new Thread(release).start();
        release.get(30, TimeUnit.SECONDS);
        assertThat(magazine.releasedRuns().keptBytes()).isZero();
        assertThat(chunk.isUnused()).isTrue();
    }

    @Test
    void theBoundsHoldAndEveryKeptRunGoesBackAtATickATrimAndTheEnd() {
        List<MagByteBuf> buffers = new ArrayList<>();
        for (int i = 0; i < ReleasedRuns.CAPACITY + 3; i++) {
            buffers.add(allocate(RUN));
        }
        buffers.forEach(MagByteBuf::release);
        assertThat(magazine.releasedRuns().keptBytes()).as("at most %d runs", ReleasedRuns.CAPACITY)
            .isEqualTo((long) ReleasedRuns.CAPACITY * RUN);

        magazine.decayTick();
        assertThat(magazine.releasedRuns().keptBytes()).as("after a tick").isZero();

        allocate(RUN).release();
        magazine.requestTrim();
        allocate(4 * RUN).release(); // the large allocation does the trim asked for first
        assertThat(magazine.releasedRuns().keptBytes()).as("after a trim, only the run released since").isEqualTo(4L
            * RUN);

        magazine.end();
        assertThat(magazine.releasedRuns().keptBytes()).as("after the end").isZero();
        assertThat(pool.metrics().largeChunks()).as("every chunk went back with its last page").isZero();
    }

    @Test
    void runsBeyondTheBoundGoBackToTheChunk() {
        int maxPooled = allocator.config().maxPooledSize();
        MagByteBuf a = allocate(maxPooled);
        MagByteBuf b = allocate(maxPooled);
        MagByteBuf c = allocate(maxPooled);
        a.release();
        b.release();
        c.release();
        assertThat(magazine.releasedRuns().keptBytes()).as("twice the largest pooled request at most")
            .isEqualTo(2L * maxPooled);
    }

    /**
     * Releases that empty a chunk while others are kept: the next large allocation gives the kept runs back with the
     * spare chunks, so a burst's chunks go back then, not at the next tick.
     */
    @Test
    void keptRunsGoBackWithTheSparesWhenAReleaseEmptiesAChunk() {
        List<MagByteBuf> burst = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            burst.add(allocate(RUN));
        }
        burst.forEach(MagByteBuf::release);
        assertThat(magazine.releasedRuns().keptBytes()).isEqualTo((long) ReleasedRuns.CAPACITY * RUN);
        MagByteBuf next = allocate(RUN);
        assertThat(magazine.releasedRuns().keptBytes()).isZero();
        assertThat(pool.metrics().largeChunks()).as("the chunk serving the new buffer only").isEqualTo(1);
        next.release();
    }

    @Test
    void aRunOfADetachedChunkIsNotKept() {
        MagByteBuf buf = allocate(RUN);
        LargeChunk chunk = (LargeChunk) buf.memory();
        magazine.releaseThreadResources(); // detaches every chunk, as the magazine's end does
        buf.release();
        assertThat(magazine.releasedRuns().keptBytes()).isZero();
        assertThat(pool.metrics().largeChunks()).as("the detached chunk went back with its last page").isZero();
        assertThat(chunk.isDetached()).isTrue();
    }
}
