package io.github.magalloc.workload;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The memory-under-a-limit scenario compares allocators only if each is asked for the same sizes, whatever it refuses,
 * and if a refusal is counted rather than ending a loop: checked here with an allocator that refuses every seventh
 * request and one that refuses none. No timing: the deadline is far off.
 */
class LimitScenarioTest {
    private static final long LIVE = 8L << 20;
    private static final int ROUNDS = 4;

    @Test
    void everyAllocatorIsAskedForTheSameSizesAndRefusalsAreCounted() throws Exception {
        Recording refusing = run(7);
        Recording accepting = run(0);

        assertThat(refusing.result.finished()).isTrue();
        assertThat(refusing.result.failures()).isEqualTo(refusing.refused.get()).isPositive();
        assertThat(refusing.result.allocations()).isEqualTo(refusing.asked.size());
        assertThat(accepting.result.failures()).isZero();
        assertThat(sorted(refusing.asked)).isEqualTo(sorted(accepting.asked));
        assertThat(refusing.result.firstFailure()).isEqualTo("refused on purpose");
        // Each loop holds its share of the live bytes at once: a quarter at each of its rounds.
        assertThat(accepting.result.allocations()).isGreaterThan(ROUNDS * LIVE / LimitScenario.LARGE_MAX);
        for (ByteBuf buf : accepting.handedOut) {
            assertThat(buf.refCnt()).as("a buffer left unreleased").isZero();
        }
    }

    @Test
    void sizesStayWithinTheirRanges() {
        java.util.Random random = new java.util.Random(1);
        for (int i = 0; i < 100_000; i++) {
            assertThat(LimitScenario.logUniform(random, LimitScenario.SMALL_MIN, LimitScenario.SMALL_MAX))
                .isBetween(LimitScenario.SMALL_MIN, LimitScenario.SMALL_MAX);
        }
    }

    /** What an allocator saw: every size asked for, the refusals, every buffer handed out. */
    private static final class Recording {
        final ConcurrentLinkedQueue<Integer> asked = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<ByteBuf> handedOut = new ConcurrentLinkedQueue<>();
        final AtomicInteger refused = new AtomicInteger();
        LimitScenario.Result result;
    }

    /** One run on an allocator that refuses every {@code refuseEvery}th request (0: none). */
    private static Recording run(int refuseEvery) throws InterruptedException {
        Recording recording = new Recording();
        AtomicInteger count = new AtomicInteger();
        AbstractByteBufAllocator recorder = new AbstractByteBufAllocator(true) {
            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                recording.asked.add(initialCapacity);
                if (refuseEvery > 0 && count.incrementAndGet() % refuseEvery == 0) {
                    recording.refused.incrementAndGet();
                    throw new OutOfMemoryError("refused on purpose");
                }
                ByteBuf buf = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
                recording.handedOut.add(buf);
                return buf;
            }

            @Override
            protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                throw new UnsupportedOperationException("the scenario asks for direct buffers here");
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        };
        LimitScenario scenario = new LimitScenario(recorder, true);
        try {
            recording.result = scenario.run(ROUNDS, LIVE, 57, System.nanoTime() + TimeUnit.MINUTES.toNanos(5));
        } finally {
            scenario.close();
        }
        return recording;
    }

    private static List<Integer> sorted(ConcurrentLinkedQueue<Integer> sizes) {
        List<Integer> list = new ArrayList<>(sizes);
        Collections.sort(list);
        return list;
    }
}
