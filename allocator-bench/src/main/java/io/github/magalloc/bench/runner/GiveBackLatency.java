package io.github.magalloc.bench.runner;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.PeakScenario;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * An event loop's task latency while magalloc gives a peak back: two event loops hold a peak of direct buffers
 * (64 B to 64 KiB) and release it, then carry light traffic (one 1 KiB buffer each every 10 ms) while their decay
 * ticks give the chunks back, the reuse pool purges its excess and the C heap is trimmed on the background thread.
 * Meanwhile a plain thread hands the first of those loops a probe task every millisecond; the probe's latency is the
 * time from its {@code execute} to its start. Run it once with the allocator's defaults and once with
 * {@code -Dmagalloc.nativeTrimMillis=0} to see what the trims cost the loop.
 *
 * <p>Usage: {@code GiveBackLatency PEAK_MIB SECONDS}; prints one tab-separated {@code LATENCY} line: nativeTrimMillis,
 * probes, p50, p99, p99.9 and max latency in microseconds, from the release to {@code SECONDS} after it.
 */
public final class GiveBackLatency {
    private static final long PROBE_PERIOD_NANOS = 1_000_000;

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: GiveBackLatency PEAK_MIB SECONDS");
            System.exit(2);
        }
        long peakBytes = Long.parseLong(args[0]) << 20;
        double seconds = Double.parseDouble(args[1]);
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
        PeakScenario scenario = new PeakScenario(allocator, true, 2);
        try {
            scenario.peak(peakBytes, PeakScenario.Releaser.OWNER, 31);
            scenario.startAfter(PeakScenario.After.LIGHT);
            long[] latencies = probe(scenario.thread(0), seconds);
            Arrays.sort(latencies);
            System.out.printf("LATENCY\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f%n", allocator.config().nativeTrimMillis(),
                latencies.length, micros(latencies, 0.5), micros(latencies, 0.99), micros(latencies, 0.999),
                latencies[latencies.length - 1] / 1e3);
        } finally {
            scenario.close();
        }
    }

    /** Latencies of probes handed to {@code loop} every millisecond for {@code seconds}, in nanoseconds. */
    private static long[] probe(Executor loop, double seconds) throws InterruptedException {
        int count = (int) (seconds * 1e9 / PROBE_PERIOD_NANOS);
        long[] latencies = new long[count];
        CountDownLatch done = new CountDownLatch(count);
        long next = System.nanoTime();
        for (int i = 0; i < count; i++) {
            int index = i;
            long handed = System.nanoTime();
            loop.execute(() -> {
                latencies[index] = System.nanoTime() - handed;
                done.countDown();
            });
            next += PROBE_PERIOD_NANOS;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
        done.await();
        return latencies;
    }

    private static double micros(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) (quantile * sorted.length))] / 1e3;
    }
}
