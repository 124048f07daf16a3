package io.github.magalloc.bench;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * Where magalloc's used memory goes under {@link AllocPatternBenchmark}'s workload (or, with the distribution
 * {@code PINNING}, {@link PinningBenchmark}'s): the same size table and slot order, on one event-loop thread (a
 * {@code FastThreadLocalThread}, so it gets its own magazine), no timing. At {@code samples} evenly spaced points
 * it splits used / live into three factors, from the public metric only:
 * <ul>
 *   <li>rounding: bytes of the segments (size class) and page runs (whole 8 KiB pages) / bytes asked for;</li>
 *   <li>occupancy: bytes of the chunks magazines hold / those segment and page bytes (a chunk goes back only when
 *       all of it is free);</li>
 *   <li>reuse pool: used bytes / chunk bytes (empty chunks and slabs kept for reuse, counted in used).</li>
 * </ul>
 * Usage: {@code java -cp allocator-bench/target/benchmarks.jar io.github.magalloc.bench.FootprintBreakdown
 * [distribution|PINNING] [maxLive] [ops] [samples]} (defaults API_GATEWAY 8192 20000000 5, about 40 s; PINNING
 * ignores maxLive).
 */
public final class FootprintBreakdown {
    /** Page size of large chunks (requests above the last size class take whole pages). */
    private static final int PAGE = 8192;
    /** The distribution argument that runs {@link PinningBenchmark}'s workload instead of AllocPattern's. */
    static final String PINNING = "PINNING";

    private FootprintBreakdown() {
    }

    public static void main(String[] args) throws InterruptedException {
        String distribution = args.length > 0 ? args[0] : "API_GATEWAY";
        int maxLive = args.length > 1 ? Integer.parseInt(args[1]) : 8192;
        long ops = args.length > 2 ? Long.parseLong(args[2]) : 20_000_000L;
        int samples = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        System.out.printf(Locale.ROOT, "%s, %,d live buffers, one event loop%n", distribution,
            PINNING.equals(distribution) ? PinningBenchmark.LONG_SLOTS + PinningBenchmark.SHORT_SLOTS : maxLive);
        System.out.println("        ops   live MiB   used MiB  used/live = rounding x occupancy x reuse pool"
            + "   new slabs per 1,000 ops");
        Sample previous = null;
        for (Sample s : onEventLoop(MagazineByteBufAllocator.builder().build(), distribution, maxLive, ops, samples)) {
            long sinceOps = previous == null ? s.ops : s.ops - previous.ops;
            long sinceSlabs = previous == null ? s.slabsAllocated : s.slabsAllocated - previous.slabsAllocated;
            System.out.printf(Locale.ROOT, "%,11d %10.2f %10.2f  %9.3f = %8.3f x %9.3f x %10.3f   %12.3f%n", s.ops,
                s.liveBytes / 1048576.0, s.usedBytes / 1048576.0, s.usedPerLive(), s.rounding(), s.occupancy(),
                s.reusePool(), sinceSlabs * 1000.0 / sinceOps);
            previous = s;
        }
    }

    /**
     * One look at the allocator after {@code ops} operations, in bytes; {@code slabsAllocated} counts the trips to
     * the system since the allocator started (the first sample's include the workload's initial fill).
     */
    record Sample(long ops, long liveBytes, long roundedBytes, long chunkBytes, long usedBytes, long slabsAllocated) {
        double rounding() {
            return roundedBytes / (double) liveBytes;
        }

        double occupancy() {
            return chunkBytes / (double) roundedBytes;
        }

        double reusePool() {
            return usedBytes / (double) chunkBytes;
        }

        double usedPerLive() {
            return usedBytes / (double) liveBytes;
        }
    }

    /**
     * Runs the workload for {@code ops} operations on a new event-loop thread of {@code alloc} and returns
     * {@code samples} evenly spaced looks at it; a failure on that thread is thrown here.
     */
    static List<Sample> onEventLoop(MagazineByteBufAllocator alloc, String distribution, int maxLive, long ops,
                                    int samples) throws InterruptedException {
        List<Sample> result = new ArrayList<>();
        Throwable[] failure = new Throwable[1];
        Thread eventLoop = new DefaultThreadFactory("footprint").newThread(() -> {
            try {
                run(alloc, distribution, maxLive, ops, Math.max(1, ops / samples), result);
            } catch (Throwable t) {
                failure[0] = t;
            }
        });
        eventLoop.start();
        eventLoop.join();
        if (failure[0] != null) {
            throw new IllegalStateException("the workload failed", failure[0]);
        }
        return result;
    }

    private static void run(MagazineByteBufAllocator alloc, String distribution, int maxLive, long ops, long every,
                            List<Sample> samples) {
        boolean pinning = PINNING.equals(distribution);
        int[] sizes = pinning ? SizeTable.logUniform(PinningBenchmark.MIN_SIZE, PinningBenchmark.MAX_SIZE)
            : SizeTable.of(distribution);
        IntSupplier nextSlot = pinning ? pinningSlots() : shuffledSlots(maxLive);
        int slots = pinning ? PinningBenchmark.LONG_SLOTS + PinningBenchmark.SHORT_SLOTS : maxLive;
        ByteBuf[] live = new ByteBuf[slots];
        int[] liveSizes = new int[slots];
        int sizeCursor = 0;
        for (int slot = 0; slot < slots; slot++) {
            liveSizes[slot] = sizes[sizeCursor++];
            live[slot] = alloc.directBuffer(liveSizes[slot]);
        }
        for (long op = 1; op <= ops; op++) {
            int slot = nextSlot.getAsInt();
            live[slot].release();
            liveSizes[slot] = sizes[sizeCursor];
            sizeCursor = sizeCursor + 1 == sizes.length ? 0 : sizeCursor + 1;
            live[slot] = alloc.directBuffer(liveSizes[slot]);
            if (op % every == 0) {
                samples.add(sample(alloc.metric(), liveSizes, op));
            }
        }
        for (ByteBuf buf : live) {
            buf.release();
        }
    }

    /** AllocPattern's order: shuffled rounds of all slots, so buffers live about {@code maxLive} operations. */
    private static IntSupplier shuffledSlots(int maxLive) {
        int[] order = AllocPatternBenchmark.shuffledRounds(maxLive, Math.max(1, SizeTable.LENGTH / maxLive));
        int[] cursor = new int[1];
        return () -> {
            int slot = order[cursor[0]];
            cursor[0] = cursor[0] + 1 == order.length ? 0 : cursor[0] + 1;
            return slot;
        };
    }

    /**
     * Pinning's order: every {@code LONG_EVERY}th operation replaces the next long-lived slot (the first
     * {@code LONG_SLOTS}), the others the next short-lived one (the last {@code SHORT_SLOTS}).
     */
    private static IntSupplier pinningSlots() {
        int[] state = new int[3]; // op within LONG_EVERY, long cursor, short cursor
        return () -> {
            if (++state[0] == PinningBenchmark.LONG_EVERY) {
                state[0] = 0;
                int slot = state[1];
                state[1] = slot + 1 == PinningBenchmark.LONG_SLOTS ? 0 : slot + 1;
                return slot;
            }
            int slot = state[2];
            state[2] = slot + 1 == PinningBenchmark.SHORT_SLOTS ? 0 : slot + 1;
            return PinningBenchmark.LONG_SLOTS + slot;
        };
    }

    private static Sample sample(MagazineByteBufAllocatorMetric metric, int[] liveSizes, long op) {
        int[] classSizes = new int[metric.sizeClassCount()];
        for (int i = 0; i < classSizes.length; i++) {
            classSizes[i] = metric.sizeClassSize(i);
        }
        long liveBytes = 0;
        long roundedBytes = 0;
        for (int size : liveSizes) {
            liveBytes += size;
            roundedBytes += rounded(size, classSizes);
        }
        long used = metric.usedDirectMemory();
        return new Sample(op, liveBytes, roundedBytes, used - metric.pooledFreeMemory(true), used,
            metric.slabsAllocated(true));
    }

    /** Bytes a request really takes: its size class, or whole pages above the last class. */
    private static long rounded(int size, int[] classSizes) {
        if (size > classSizes[classSizes.length - 1]) {
            return (size + PAGE - 1L) / PAGE * PAGE;
        }
        int low = 0;
        int high = classSizes.length - 1;
        while (low < high) { // the smallest class >= size
            int mid = (low + high) >>> 1;
            if (classSizes[mid] >= size) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return classSizes[low];
    }
}
