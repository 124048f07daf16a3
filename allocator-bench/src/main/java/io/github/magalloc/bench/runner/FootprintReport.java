package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.AllocPatternBenchmark;
import io.github.magalloc.bench.SizeTable;
import io.github.magalloc.bench.Workers;
import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.Rss;
import io.github.magalloc.workload.SizeDistribution;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Footprint of one allocator in one configuration, in a JVM of its own (RSS is per process, so each
 * configuration gets a fresh one; the runner starts them). Fills {@code live} buffers, churns them as the
 * AllocPattern benchmark does (every slot replaced 20 times, shuffled order) until steady, reports; then releases everything, trims, and reports again.
 * Trim: magalloc {@code trim()}; Netty pooled {@code trimCurrentThreadCache()} (the nearest equivalent: it only
 * empties the calling thread's cache, chunks stay); adaptive and unpooled have no trim API.
 *
 * <p>Prints one tab-separated {@code FOOTPRINT} line per phase:
 * allocator, distribution, live, threads, direct, phase, live bytes, used bytes, RSS bytes, trim action.
 * Usage: {@code FootprintReport ALLOCATOR DISTRIBUTION LIVE EVENT_LOOP|PLAIN [heap]}.
 */
public final class FootprintReport {
    static final String PREFIX = "FOOTPRINT\t";
    /** Rounds of replacing every live buffer once before measuring: long enough to reach the pool's steady state. */
    private static final int CHURN_ROUNDS = 20;

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: FootprintReport ALLOCATOR DISTRIBUTION LIVE EVENT_LOOP|PLAIN [heap]");
            System.exit(2);
        }
        AllocatorKind kind = AllocatorKind.valueOf(args[0]);
        SizeDistribution distribution = SizeDistribution.valueOf(args[1]);
        int live = Integer.parseInt(args[2]);
        Workers workers = Workers.valueOf(args[3]);
        boolean direct = !(args.length > 4 && args[4].equals("heap"));
        String config = kind + "\t" + distribution + "\t" + live + "\t" + workers + "\t" + direct + "\t";

        ByteBufAllocator allocator = kind.create(direct);
        String start = "start\t0\t" + AllocatorKind.usedMemory(allocator) + "\t" + Rss.bytes() + "\t-";
        List<String> lines = onWorker(workers, () -> run(kind, allocator, workers, distribution, live, direct));
        System.out.println(PREFIX + config + start);
        for (String line : lines) {
            System.out.println(PREFIX + config + line);
        }
    }

    private static List<String> run(AllocatorKind kind, ByteBufAllocator allocator, Workers workers,
            SizeDistribution distribution, int live, boolean direct) {
        workers.verify(kind, allocator);
        int[] sizes = SizeTable.of(distribution.name());
        ByteBuf[] buffers = new ByteBuf[live];
        int[] liveSizes = new int[live];
        int cursor = 0;
        for (int i = 0; i < live; i++, cursor++) {
            liveSizes[i] = sizes[cursor % sizes.length];
            buffers[i] = allocate(allocator, direct, liveSizes[i]);
        }
        int[] slotOrder = AllocPatternBenchmark.shuffledRounds(live, CHURN_ROUNDS); // as the benchmark does
        for (int slot : slotOrder) {
            cursor++;
            buffers[slot].release();
            liveSizes[slot] = sizes[cursor % sizes.length];
            buffers[slot] = allocate(allocator, direct, liveSizes[slot]);
        }
        long liveBytes = 0;
        for (int size : liveSizes) {
            liveBytes += size;
        }
        List<String> lines = new ArrayList<>();
        lines.add("steady\t" + liveBytes + "\t" + AllocatorKind.usedMemory(allocator) + "\t" + Rss.bytes() + "\t-");
        for (int i = 0; i < live; i++) {
            buffers[i].release();
        }
        lines.add("released\t0\t" + AllocatorKind.usedMemory(allocator) + "\t" + Rss.bytes() + "\t-");
        String trim = AllocatorKind.trim(allocator);
        lines.add("trimmed\t0\t" + AllocatorKind.usedMemory(allocator) + "\t" + Rss.bytes() + "\t" + trim);
        return lines;
    }

    private static ByteBuf allocate(ByteBufAllocator allocator, boolean direct, int size) {
        return direct ? allocator.directBuffer(size) : allocator.heapBuffer(size);
    }

    /** Runs the whole burst on one thread of the requested kind (pooled thread caches are per thread). */
    private static <T> T onWorker(Workers workers, Callable<T> task) throws Exception {
        if (workers == Workers.EVENT_LOOP) {
            EventExecutor loop = new DefaultEventExecutor();
            try {
                return loop.submit(task).get();
            } finally {
                loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            }
        }
        ExecutorService plain = Executors.newSingleThreadExecutor();
        try {
            return plain.submit(task).get();
        } finally {
            plain.shutdown();
        }
    }
}
