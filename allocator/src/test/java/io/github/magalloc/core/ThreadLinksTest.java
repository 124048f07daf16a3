package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a thread reaches its magazine (protocol 8 (dropped allocators)): its slot holds the magazine's weak
 * {@code threadLink} on every kind of thread (a harness thread whose executor refuses the ticks, an event loop, a loop
 * that refused a task), whatever the decay does, and the pool's table holds the magazine for the allocation's first
 * look. The slot's type admits no strong link; the dropped-allocator tests show that such a thread keeps nothing.
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
    void aHarnessThreadLinksItsMagazineWeaklyAndFindsItInTheTable() throws Exception {
        ExecutorService harness = RefusingExecutor.harnessThread("harness-link");
        try {
            Link first = on(harness, () -> afterAllocating(SMALL));
            Link later = on(harness, () -> afterAllocating(SMALL));
            first.assertWeakAndInTable("harness thread, first chunk");
            assertThat(later.link).as("the same link later").isSameAs(first.link);
        } finally {
            harness.shutdownNow();
            assertThat(harness.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void anEventLoopLinksWeaklyBeforeAndAfterItsTicksAreScheduled() throws Exception {
        EventExecutor loop = new DefaultEventExecutor();
        try {
            Link hugeOnly = on(loop, () -> afterAllocating(HUGE));
            hugeOnly.assertWeakAndInTable("event loop, no chunk taken");
            Link withChunk = on(loop, () -> afterAllocating(SMALL));
            withChunk.assertWeakAndInTable("event loop, ticks scheduled");
            assertThat(withChunk.link).as("the same link").isSameAs(hugeOnly.link);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * A loop whose magazine's ticks ran, then refused a task (a release on another thread emptied a large chunk): the
     * owner takes the ticks over at its next large allocation; its link stays what it was.
     */
    @Test
    void aLoopThatRefusedATaskKeepsItsWeakLink() throws Exception {
        RefusingLoop loop = new RefusingLoop("refusing-link");
        try {
            Link before = on(loop, () -> afterAllocating(SMALL));
            before.assertWeakAndInTable("loop while ticks are scheduled");
            ByteBuf large = on(loop, () -> alloc.directBuffer(LARGE));
            loop.refusing = true;
            try {
                large.release(); // empties the loop's large chunk: the loop is asked to collect, and refuses
            } finally {
                loop.refusing = false;
            }
            assertThat(loop.refused()).as("tasks the loop refused").isEqualTo(1);
            Link after = on(loop, () -> afterAllocating(LARGE));
            after.assertWeakAndInTable("loop once the ticks moved to the slow paths");
            assertThat(after.link).as("the same link").isSameAs(before.link);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    /** Allocates and releases one buffer twice (the second allocation finds the magazine the first made). */
    private Link afterAllocating(int size) {
        alloc.directBuffer(size).release();
        alloc.directBuffer(size).release();
        return new Link(threads.currentLink(), threads.current(), Thread.currentThread().getId());
    }

    /** What a thread saw: its slot's link, the magazine an allocation finds, and its id. */
    private final class Link {
        final WeakReference<ThreadMagazine> link;
        final ThreadMagazine current;
        final long threadId;

        Link(WeakReference<ThreadMagazine> link, ThreadMagazine current, long threadId) {
            this.link = link;
            this.current = current;
            this.threadId = threadId;
        }

        void assertWeakAndInTable(String where) {
            assertThat(current).as(where + ": the thread's magazine").isNotNull();
            assertThat(current.lvOwnerThreadId()).as(where + ": its owner").isEqualTo(threadId);
            assertThat(link).as(where + ": the slot's link").isSameAs(current.threadLink);
            assertThat(link.get()).as(where + ": what the link refers to").isSameAs(current);
            assertThat(threads.holds(current)).as(where + ": in the table").isTrue();
        }
    }

    private static <T> T on(ExecutorService executor, Callable<T> work) throws Exception {
        try {
            return executor.submit(work).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }
}
