package io.github.magalloc.bench.runner;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.PeakScenario;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Bursts with quiet between them on one event loop, to see whether memory given back between bursts has to be taken
 * from the system again at the next: each burst allocates buffers of mixed sizes (64 B to 64 KiB, log-uniform,
 * seeded) until {@code LIVE_MIB} are live, holds them for the rest of {@code BURST_MS}, releases them in a shuffled
 * order (on the loop, or on this thread), and the loop is quiet for {@code QUIET_MS}. Reports, after the first
 * {@code WARM_UP} bursts, the slabs magalloc took from the system per burst (its metric) and the time per buffer
 * allocated and released during the bursts.
 *
 * <p>Usage: {@code BurstReport heap|direct OWNER|OTHER BURSTS [LIVE_MIB BURST_MS QUIET_MS]}; prints one
 * tab-separated {@code BURST} line: memory, releaser, bursts measured, slabs per burst, ns per buffer.
 */
public final class BurstReport {
    private static final int WARM_UP = 5;

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: BurstReport heap|direct OWNER|OTHER BURSTS [LIVE_MIB BURST_MS QUIET_MS]");
            System.exit(2);
        }
        boolean direct = args[0].equals("direct");
        boolean ownerReleases = args[1].equals("OWNER");
        int bursts = Integer.parseInt(args[2]);
        long liveBytes = (args.length > 3 ? Long.parseLong(args[3]) : 50) << 20;
        long burstMillis = args.length > 4 ? Long.parseLong(args[4]) : 100;
        long quietMillis = args.length > 5 ? Long.parseLong(args[5]) : 100;

        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
        EventExecutor loop = new DefaultEventExecutor();
        Random random = new Random(42);
        long slabsBefore = 0;
        long buffers = 0;
        long nanos = 0;
        try {
            for (int burst = 0; burst < WARM_UP + bursts; burst++) {
                if (burst == WARM_UP) {
                    slabsBefore = allocator.metric().slabsAllocated(direct);
                    buffers = 0;
                    nanos = 0;
                }
                long seed = random.nextLong();
                long start = System.nanoTime();
                List<ByteBuf> held = loop.submit(() -> allocateUntil(allocator, direct, liveBytes, new Random(seed)))
                    .get();
                long allocated = System.nanoTime() - start;
                sleepUntil(start + TimeUnit.MILLISECONDS.toNanos(burstMillis));
                long releaseStart = System.nanoTime();
                if (ownerReleases) {
                    loop.submit(() -> PeakScenario.shuffleAndRelease(held, new Random(seed))).get();
                } else {
                    PeakScenario.shuffleAndRelease(held, new Random(seed));
                }
                nanos += allocated + System.nanoTime() - releaseStart;
                buffers += held.size();
                Thread.sleep(quietMillis);
            }
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
        double slabsPerBurst = (double) (allocator.metric().slabsAllocated(direct) - slabsBefore) / bursts;
        System.out.printf("BURST\t%s\t%s\t%d\t%.1f\t%.1f%n", direct ? "direct" : "heap", args[1], bursts,
            slabsPerBurst, (double) nanos / buffers);
    }

    private static List<ByteBuf> allocateUntil(MagazineByteBufAllocator allocator, boolean direct, long bytes,
                                               Random random) {
        List<ByteBuf> buffers = new ArrayList<>();
        for (long total = 0; total < bytes; ) {
            int size = PeakScenario.randomSize(random);
            buffers.add(direct ? allocator.directBuffer(size, size) : allocator.heapBuffer(size, size));
            total += size;
        }
        return buffers;
    }

    private static void sleepUntil(long deadline) throws InterruptedException {
        long wait = deadline - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
    }
}
