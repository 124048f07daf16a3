package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Protocol 9 (making room), under a direct memory limit of 16 MiB (a JVM of its own, stress-tests/pom.xml, with no
 * flag that changes how Netty takes direct memory: on JDK 17 the JDK's counter refuses, after its sleeping retry).
 * Memory one event loop freed, but still holds, is what another loop needs: the other loop's allocations must find
 * it, whether the first loop answers (it is idle) or not (it is blocked), within what the protocol says it reaches;
 * and an allocation that fails says where the memory is, without having asked the JDK for the slab that did not fit.
 * Each test makes its own allocator, whose decay is off for the test's length so that nothing goes back on its own.
 */
class ShortageTest {
    private static final int MIB = 1 << 20;
    private static final int LARGE = 256 * 1024;
    private static final int SMALL = 1024;
    /** What each loop fills: together more than the limit, each alone well within it. */
    private static final int FILL = 10 * MIB;

    private MagazineByteBufAllocator alloc;
    private EventExecutor first;
    private EventExecutor second;

    @BeforeEach
    void setUp() {
        alloc = MagazineByteBufAllocator.builder().decayMillis(3_600_000).reuseBudgetBytes(0).build();
        first = new DefaultEventExecutor();
        second = new DefaultEventExecutor();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        first.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
        second.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
    }

    /**
     * The first loop released its large buffers: its large chunks are empty and stay with it (its next look would give
     * them back; decay is off). It is then blocked in a task, so it answers nothing: the second loop's allocations must
     * take those chunks themselves (the hand-over).
     */
    @Test
    void anotherLoopsEmptyLargeChunksAreTakenWhileItIsBlocked() throws Exception {
        on(first, () -> {
            releaseAll(fill(LARGE, FILL));
            return null;
        });
        assertThat(alloc.metric().usedDirectMemory()).as("what the first loop holds, empty").isGreaterThan(FILL / 2);
        CountDownLatch unblock = new CountDownLatch(1);
        first.execute(() -> awaitQuietly(unblock));
        try {
            on(second, () -> {
                releaseAll(fill(LARGE, FILL));
                return null;
            });
        } finally {
            unblock.countDown();
        }
    }

    /**
     * The first loop's small buffers were released by another thread: their segments wait in its chunks' queues,
     * which only the first loop drains. It is idle, so it answers a round: the second loop's allocations must succeed
     * with the memory it gives back.
     */
    @Test
    void anotherIdleLoopGivesBackWhenAsked() throws Exception {
        List<ByteBuf> held = on(first, () -> fill(SMALL, FILL));
        releaseAll(held); // on the test's thread: remote releases, queued in the first loop's chunks
        assertThat(alloc.metric().usedDirectMemory()).as("what the first loop holds, free").isGreaterThan(FILL / 2);
        on(second, () -> {
            releaseAll(fill(SMALL, FILL));
            return null;
        });
    }

    /**
     * As above, but the first loop is blocked: queued releases are beyond what a round reaches without the owner, so
     * the second loop fails, and its error says where the memory is (free but held, a thread that did not answer).
     * Once the first loop is free again, the second loop's allocations succeed.
     */
    @Test
    void aBlockedLoopsQueuedFreeMemoryIsCountedAsHeldAndComesBackOnceItAnswers() throws Exception {
        List<ByteBuf> held = on(first, () -> fill(SMALL, FILL));
        releaseAll(held);
        CountDownLatch unblock = new CountDownLatch(1);
        first.execute(() -> awaitQuietly(unblock));
        OutOfMemoryError error;
        try {
            error = on(second, () -> {
                List<ByteBuf> mine = new ArrayList<>();
                try {
                    fillInto(mine, SMALL, FILL);
                    throw new AssertionError("the second loop filled " + FILL + " bytes: nothing was held");
                } catch (OutOfMemoryError e) {
                    return e;
                } finally {
                    releaseAll(mine);
                }
            });
        } finally {
            unblock.countDown();
        }
        assertThat(error.getMessage()).contains("free but held").contains("by 1 threads that did not give back");
        on(second, () -> {
            releaseAll(fill(SMALL, FILL));
            return null;
        });
    }

    /**
     * Live buffers up to the limit: the error names the limit, what is in use, what live buffers use and what is free
     * but held; and magalloc never asked the JDK for the slab that did not fit (a refusal by the JDK, after its
     * collection and sleeps, would be the error's cause).
     */
    @Test
    void anExhaustedLimitIsToldWithoutAskingTheJdk() throws Exception {
        List<ByteBuf> held = new ArrayList<>();
        OutOfMemoryError error = on(first, () -> {
            try {
                fillInto(held, LARGE, Integer.MAX_VALUE);
                throw new AssertionError("no OutOfMemoryError");
            } catch (OutOfMemoryError e) {
                return e;
            }
        });
        try {
            assertThat(error.getMessage()).contains("magalloc: cannot allocate").contains("max direct memory")
                .contains("in use").contains("live buffers").contains("free but held");
            assertThat(error.getCause()).as("the JDK's refusal of a slab magalloc asked for").isNull();
        } finally {
            on(first, () -> {
                releaseAll(held);
                return null;
            });
        }
    }

    /**
     * Runs {@code step} on {@code loop} and returns what it returned. What it throws fails the test, an
     * {@link OutOfMemoryError} as an assertion (JUnit would take it for the JVM's own and stop every test).
     */
    private <T> T on(EventExecutor loop, Callable<T> step) throws Exception {
        try {
            return loop.submit(step).get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof OutOfMemoryError) {
                throw new AssertionError("an allocation failed: " + e.getCause().getMessage(), e.getCause());
            }
            if (e.getCause() instanceof Error) {
                throw (Error) e.getCause();
            }
            throw e;
        }
    }

    private List<ByteBuf> fill(int size, int bytes) {
        List<ByteBuf> held = new ArrayList<>();
        fillInto(held, size, bytes);
        return held;
    }

    private void fillInto(List<ByteBuf> held, int size, int bytes) {
        for (long total = 0; total < bytes; total += size) {
            held.add(alloc.directBuffer(size, size).writeLong(total));
        }
    }

    private static void releaseAll(List<ByteBuf> held) {
        for (ByteBuf buf : held) {
            assertThat(buf.release()).isTrue();
        }
        held.clear();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
