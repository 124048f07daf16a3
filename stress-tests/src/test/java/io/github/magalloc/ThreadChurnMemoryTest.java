package io.github.magalloc;

import io.github.magalloc.core.SizeClasses;
import io.github.magalloc.churn.ThreadChurn;
import io.github.magalloc.workload.PeakScenario;
import io.netty.buffer.AdaptiveByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Memory of threads that are gone comes back without anyone calling {@code trim()}: several hundred plain and
 * event-loop producer threads allocate, hand most buffers to long-lived consumers and die; the consumers release
 * them later (most after their producer died, some through retained slices). Once every buffer is released, no
 * ended thread's magazine holds a byte, the reuse pool holds at most its budget, the shared magazines keep no more
 * than their current chunks, and magalloc holds no more than Netty's adaptive allocator after the same run
 * ({@link ThreadChurn} at a smaller size). An ended magazine's chunk goes back with its last buffer (protocol 4
 * (ended threads)); the release that empties a stripe's large chunk gives the stripe's spare chunks back (protocol 6
 * (large chunks)).
 */
class ThreadChurnMemoryTest {
    private static final ThreadChurn.Config CONFIG = new ThreadChurn.Config(300, 300, 200, 8, 2000, 7);

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void endedThreadsLeaveNothingBehindOnceTheirBuffersAreReleased() throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        ThreadChurn.Result magalloc = ThreadChurn.run(alloc, CONFIG);
        MagazineByteBufAllocatorMetric metric = alloc.metric();

        assertThat(magalloc.releasedAfterProducerDied).as("buffers released after their producer died")
            .isGreaterThan(magalloc.buffers / 2);
        assertThat(metric.endedThreadMagazines(true)).as("event-loop producers' magazines ended")
            .isGreaterThanOrEqualTo(300);
        for (boolean direct : new boolean[] {false, true}) {
            assertThat(metric.endedThreadsMemory(direct)).as("held by ended threads, direct=%s", direct).isZero();
            // Up to twice the budget for a decay period after the churn's last chunks came back (protocol 3a (the
            // reuse pool's excess)).
            assertThat(pooledAfterTheExcessPurge(metric, direct)).as("reuse pool, direct=%s", direct)
                .isLessThanOrEqualTo(metric.reuseBudget());
            assertThat(metric.hugeMemory(direct)).isZero();
            // The release that empties a stripe's large chunk gives the stripe's spares back: one chunk is left
            // per stripe at most, not every chunk the stripes' last burst used.
            assertThat(metric.activeLargeChunks(direct)).as("large chunks left, direct=%s", direct)
                .isLessThanOrEqualTo(metric.sharedMagazines());
            // What is left besides the reuse pool belongs to the live shared magazines: one current chunk per size
            // class and one large chunk each, at most.
            long used = direct ? metric.usedDirectMemory() : metric.usedHeapMemory();
            assertThat(used - metric.pooledFreeMemory(direct)).as("held by live magazines, direct=%s", direct)
                .isLessThanOrEqualTo(metric.sharedMagazines() * perMagazineCeiling(alloc));
        }

        // Compared once the reuse pool has given back its excess (above): just after the run it may hold one more
        // reuse budget per memory type, for the next wave of a workload that comes in waves.
        long magallocUsed = metric.usedHeapMemory() + metric.usedDirectMemory();
        ThreadChurn.Result adaptive = ThreadChurn.run(new AdaptiveByteBufAllocator(), CONFIG);
        assertThat(magallocUsed).as("magalloc %d B (%d B at the end of the run), Netty adaptive %d B", magallocUsed,
            magalloc.usedTotal(), adaptive.usedTotal()).isLessThanOrEqualTo(adaptive.usedTotal());
    }

    /** The reuse pool's bytes once at or below the budget, or as they are after 60 s (only a bug waits so long). */
    private static long pooledAfterTheExcessPurge(MagazineByteBufAllocatorMetric metric, boolean direct)
        throws InterruptedException {
        return PeakScenario.pollUntilAtMost(() -> metric.pooledFreeMemory(direct), metric.reuseBudget(),
            System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
    }

    /** One chunk of each size class at its largest, plus the largest large chunk. */
    private static long perMagazineCeiling(MagazineByteBufAllocator alloc) {
        long bytes = alloc.config().maxLargeChunkSize();
        for (int sizeClass = 0; sizeClass < SizeClasses.COUNT; sizeClass++) {
            bytes += SizeClasses.chunkSizeOf(sizeClass);
        }
        return bytes;
    }
}
