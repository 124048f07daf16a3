package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which link a thread keeps to its magazine (protocol 8 (dropped allocators)): the magazine itself while its event
 * loop's ticks are scheduled; a weak link that the next allocation looks at while no tick is scheduled yet; a lasting
 * weak link, which the fast path follows without looking at the decay, once no tick can ever run while the thread is
 * idle (a harness executor refused the ticks, or a loop refused a task). A planted bug that keeps the weak link that
 * may change fails the first and last test.
 */
class ThreadLinksTest {
    private static final int SMALL = 256;
    /** Above the pooled sizes: never takes a chunk, so schedules no tick. */
    private static final int HUGE = 4 << 20;
    /** Served by a large chunk, which a release from another thread can empty. */
    private static final int LARGE = 64 * 1024;

    private final MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().decayMillis(1_000).build();
    private final ThreadMagazines threads = TestAccess.pool(alloc, true).threads();

    @Test
    void aHarnessThreadLinksItsMagazineWeaklyForGoodFromItsFirstChunk() throws Exception {
        ExecutorService harness = RefusingExecutor.harnessThread("harness-link");
        try {
            Object first = on(harness, () -> afterAllocating(SMALL));
            Object later = on(harness, () -> afterAllocating(SMALL));
            assertThat(first).as("link after the first chunk (its ticks were refused)").isInstanceOf(
                LastingWeakLink.class);
            assertThat(later).as("the same link later").isSameAs(first);
            assertThat(((LastingWeakLink) later).get()).as("the thread's magazine").isNotNull();
        } finally {
            harness.shutdownNow();
            assertThat(harness.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void anEventLoopLinksWeaklyUntilTicksAreScheduledThenStrongly() throws Exception {
        EventExecutor loop = new DefaultEventExecutor();
        try {
            Object hugeOnly = on(loop, () -> afterAllocating(HUGE));
            assertThat(hugeOnly).as("link with no chunk taken: may become strong").isNotInstanceOf(
                LastingWeakLink.class).isNotInstanceOf(ThreadMagazine.class).isNotNull();
            Object withChunk = on(loop, () -> afterAllocating(SMALL));
            assertThat(withChunk).as("link once ticks are scheduled").isInstanceOf(ThreadMagazine.class);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * A loop whose magazine's ticks ran, then refused a task (a release on another thread emptied a large chunk): the
     * owner takes the ticks over at its next large allocation, and its link becomes lasting.
     */
    @Test
    void aLoopThatRefusedATaskLinksWeaklyForGood() throws Exception {
        RefusingLoop loop = new RefusingLoop("refusing-link");
        try {
            assertThat(on(loop, () -> afterAllocating(SMALL))).as("link while ticks are scheduled").isInstanceOf(
                ThreadMagazine.class);
            ByteBuf large = on(loop, () -> alloc.directBuffer(LARGE));
            loop.refusing = true;
            try {
                large.release(); // empties the loop's large chunk: the loop is asked to collect, and refuses
            } finally {
                loop.refusing = false;
            }
            assertThat(loop.refused()).as("tasks the loop refused").isEqualTo(1);
            assertThat(on(loop, () -> afterAllocating(LARGE))).as("link once the ticks moved to the slow paths")
                .isInstanceOf(LastingWeakLink.class);
            assertThat(on(loop, () -> afterAllocating(SMALL))).as("link after a small allocation").isInstanceOf(
                LastingWeakLink.class);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /** Allocates and releases one buffer twice (the second allocation reads the link the first left), then the link. */
    private Object afterAllocating(int size) {
        alloc.directBuffer(size).release();
        alloc.directBuffer(size).release();
        return threads.currentLink();
    }

    private static <T> T on(ExecutorService executor, Callable<T> work) throws Exception {
        try {
            return executor.submit(work).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }
}
