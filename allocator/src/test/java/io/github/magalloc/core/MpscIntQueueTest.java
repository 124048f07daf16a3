package io.github.magalloc.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.BitSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpscIntQueueTest {
    @Test
    void isFifoAndReportsEmpty() {
        MpscIntQueue queue = new MpscIntQueue(8);
        assertThat(drainOne(queue)).isEqualTo(MpscIntQueue.EMPTY);
        assertThat(queue.isEmpty()).isTrue();
        for (int i = 0; i < 5; i++) {
            assertThat(queue.offer(i * 10)).isTrue();
        }
        assertThat(queue.size()).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            assertThat(drainOne(queue)).isEqualTo(i * 10);
        }
        assertThat(drainOne(queue)).isEqualTo(MpscIntQueue.EMPTY);
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void nonPowerOfTwoCapacityIsEnforcedOnTheFirstLapAndAfter() {
        MpscIntQueue queue = new MpscIntQueue(5); // backed by 8 slots
        for (int lap = 0; lap < 10; lap++) {
            for (int i = 0; i < 5; i++) {
                assertThat(queue.offer(lap * 100 + i)).as("lap %d offer %d", lap, i).isTrue();
            }
            assertThat(queue.offer(999)).as("lap %d: sixth offer", lap).isFalse();
            for (int i = 0; i < 5; i++) {
                assertThat(drainOne(queue)).isEqualTo(lap * 100 + i);
            }
            assertThat(drainOne(queue)).as("lap %d: nothing invented", lap).isEqualTo(MpscIntQueue.EMPTY);
        }
    }

    @Test
    void slotsPastTheCapacityStartEmpty() {
        MpscIntQueue queue = new MpscIntQueue(3);
        for (int i = 0; i < queue.slots.length; i++) {
            assertThat(queue.slots[i]).as("slot %d", i).isEqualTo(MpscIntQueue.EMPTY);
        }
    }

    @Test
    void drainToMovesABatchInOrderAndRespectsMax() {
        MpscIntQueue queue = new MpscIntQueue(6);
        for (int i = 0; i < 6; i++) {
            queue.offer(i);
        }
        int[] target = new int[10];
        assertThat(queue.drainTo(target, 2, 4)).isEqualTo(4);
        assertThat(target).startsWith(0, 0, 0, 1, 2, 3);
        assertThat(queue.drainTo(target, 0, 10)).isEqualTo(2);
        assertThat(target[0]).isEqualTo(4);
        assertThat(target[1]).isEqualTo(5);
        assertThat(queue.drainTo(target, 0, 10)).isZero();
        // Room again after draining: wrap around the 8-slot array several times.
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 6; i++) {
                assertThat(queue.offer(round * 6 + i)).isTrue();
            }
            assertThat(queue.drainTo(target, 0, 6)).isEqualTo(6);
            assertThat(target[5]).isEqualTo(round * 6 + 5);
        }
    }

    @Test
    void rejectsNonPositiveCapacity() {
        assertThatThrownBy(() -> new MpscIntQueue(0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("capacity: 0");
    }

    /** Four producers, one consumer: every value arrives exactly once and the queue never exceeds capacity. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void concurrentProducersLoseAndDuplicateNothing() throws Exception {
        int producers = 4;
        int perProducer = 200_000;
        MpscIntQueue queue = new MpscIntQueue(1000);
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            threads[p] = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perProducer; i++) {
                        while (!queue.offer(base + i)) {
                            Thread.onSpinWait();
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            threads[p].start();
        }
        BitSet seen = new BitSet(producers * perProducer);
        int[] lastPerProducer = new int[producers];
        java.util.Arrays.fill(lastPerProducer, -1);
        int[] batch = new int[64];
        start.countDown();
        int received = 0;
        while (received < producers * perProducer && failure.get() == null) {
            int n = queue.drainTo(batch, 0, batch.length);
            for (int i = 0; i < n; i++) {
                int value = batch[i];
                assertThat(seen.get(value)).as("duplicate %d", value).isFalse();
                seen.set(value);
                int producer = value / perProducer;
                assertThat(value).as("per-producer order").isGreaterThan(lastPerProducer[producer]);
                lastPerProducer[producer] = value;
            }
            received += n;
            if (n == 0) {
                Thread.onSpinWait();
            }
            // Exact from here (the consumer's own index first, the producers' only grows): more than the capacity
            // claimed at once would show, as size() does not cap it.
            assertThat(queue.size()).isLessThanOrEqualTo(1000);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(seen.cardinality()).isEqualTo(producers * perProducer);
        assertThat(drainOne(queue)).isEqualTo(MpscIntQueue.EMPTY);
    }

    /** The oldest value or EMPTY, through the drain a chunk's owner uses (at most one value). */
    private static int drainOne(MpscIntQueue queue) {
        int[] one = {MpscIntQueue.EMPTY};
        queue.drainTo(one, 0, 1);
        return one[0];
    }
}
