package io.github.magalloc.workload;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.Future;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Memory under a limit, as a server meets it when its traffic changes shape: four Netty event executors in rounds.
 * In each round two loops each fill their share of the live bytes with small buffers (64 B to 4 KiB, log-uniform,
 * seeded) and release them all, while the two others do the same with large buffers (16 KiB to 1 MiB); the next
 * round swaps the roles, with no pause between rounds. So at every round the memory one pair of loops just freed is
 * what the other pair now needs. The live bytes (requested sizes held at once by all four loops) never exceed
 * {@code liveBytes}.
 *
 * <p>A loop that fails an allocation ({@link OutOfMemoryError}) counts it and goes on with the next size: each loop
 * asks for the same sizes in the same order whatever the allocator. Reported: allocations asked for, failed, the
 * longest single allocation (success or failure) and the run's time. A run stops after its deadline, with the rounds
 * it finished.
 */
public final class LimitScenario {
    /** Loops, two of each kind at every round. */
    public static final int LOOPS = 4;
    public static final int SMALL_MIN = 64;
    public static final int SMALL_MAX = 4096;
    public static final int LARGE_MIN = 16 * 1024;
    public static final int LARGE_MAX = 1024 * 1024;

    /** What one run saw. */
    public record Result(int rounds, int roundsDone, long allocations, long failures, long longestNanos,
                         long elapsedNanos, String firstFailure) {
        public boolean finished() {
            return roundsDone == rounds;
        }
    }

    private final ByteBufAllocator allocator;
    private final boolean direct;
    private final List<DefaultEventExecutor> loops = new ArrayList<>();

    public LimitScenario(ByteBufAllocator allocator, boolean direct) {
        this.allocator = allocator;
        this.direct = direct;
        for (int i = 0; i < LOOPS; i++) {
            loops.add(new DefaultEventExecutor());
        }
    }

    /**
     * Runs {@code rounds} rounds with {@code liveBytes} held at the peak of each (a quarter per loop), stopping at the
     * first round boundary or allocation after {@code deadlineNanos} ({@link System#nanoTime()}).
     */
    public Result run(int rounds, long liveBytes, long seed, long deadlineNanos) throws InterruptedException {
        Random random = new Random(seed);
        long perLoop = liveBytes / LOOPS;
        long allocations = 0;
        long failures = 0;
        long longest = 0;
        String firstFailure = null;
        int done = 0;
        long start = System.nanoTime();
        for (int round = 0; round < rounds && System.nanoTime() < deadlineNanos; round++) {
            List<Future<Fill>> fills = new ArrayList<>();
            for (int i = 0; i < LOOPS; i++) {
                boolean small = (i < LOOPS / 2) == (round % 2 == 0);
                long loopSeed = random.nextLong();
                fills.add(loops.get(i).submit(() -> fill(small, perLoop, new Random(loopSeed), deadlineNanos)));
            }
            boolean complete = true;
            for (Future<Fill> future : fills) {
                Fill fill = get(future, deadlineNanos);
                allocations += fill.allocations;
                failures += fill.failures;
                longest = Math.max(longest, fill.longestNanos);
                if (firstFailure == null) {
                    firstFailure = fill.firstFailure;
                }
                complete &= fill.complete;
            }
            if (complete) {
                done++;
            }
        }
        return new Result(rounds, done, allocations, failures, longest, System.nanoTime() - start, firstFailure);
    }

    /** What one loop did in one round. */
    private static final class Fill {
        long allocations;
        long failures;
        long longestNanos;
        String firstFailure;
        boolean complete = true;
    }

    /**
     * One loop's round. An {@link OutOfMemoryError} outside an allocation (a full heap, when the list of buffers grows)
     * ends the round early rather than the loop's thread, whose death would leave the run waiting.
     */
    private Fill fill(boolean small, long bytes, Random random, long deadlineNanos) {
        Fill fill = new Fill();
        List<ByteBuf> held = new ArrayList<>();
        try {
            fillInto(held, fill, small, bytes, random, deadlineNanos);
        } catch (OutOfMemoryError e) {
            fill.complete = false;
            if (fill.firstFailure == null) {
                fill.firstFailure = "outside an allocation: " + e.getMessage();
            }
        }
        Collections.shuffle(held, random);
        for (ByteBuf buf : held) {
            buf.release();
        }
        return fill;
    }

    private void fillInto(List<ByteBuf> held, Fill fill, boolean small, long bytes, Random random,
                          long deadlineNanos) {
        long asked = 0;
        while (asked < bytes) {
            if (System.nanoTime() - deadlineNanos > 0) {
                fill.complete = false;
                break;
            }
            int size = small ? logUniform(random, SMALL_MIN, SMALL_MAX) : logUniform(random, LARGE_MIN, LARGE_MAX);
            asked += size;
            fill.allocations++;
            long begin = System.nanoTime();
            ByteBuf buf = null;
            try {
                buf = direct ? allocator.directBuffer(size, size) : allocator.heapBuffer(size, size);
                fill.longestNanos = Math.max(fill.longestNanos, System.nanoTime() - begin);
                buf.setByte(0, 1).setByte(size - 1, 1);
                held.add(buf);
            } catch (OutOfMemoryError e) {
                // The allocation's, or on a full heap the list's growth after it (its buffer then goes back here).
                if (buf != null && buf.refCnt() > 0 && (held.isEmpty() || held.get(held.size() - 1) != buf)) {
                    buf.release();
                }
                fill.longestNanos = Math.max(fill.longestNanos, System.nanoTime() - begin);
                fill.failures++;
                if (fill.firstFailure == null) {
                    fill.firstFailure = String.valueOf(e.getMessage());
                }
            }
        }
    }

    /** A size from {@code min} to {@code max}, log-uniform. */
    static int logUniform(Random random, int min, int max) {
        return (int) Math.min(max, Math.round(min * Math.exp(random.nextDouble() * Math.log((double) max / min))));
    }

    /** Shuts the loops down, waiting for them to end. */
    public void close() throws InterruptedException {
        for (DefaultEventExecutor loop : loops) {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
        for (DefaultEventExecutor loop : loops) {
            loop.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    /** The loop's result; a loop still busy a minute after the deadline fails the run (it is stuck). */
    private static <T> T get(Future<T> future, long deadlineNanos) throws InterruptedException {
        try {
            return future.get(Math.max(0, deadlineNanos - System.nanoTime()) + TimeUnit.MINUTES.toNanos(1),
                TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a loop failed", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("a loop is still busy a minute after the run's deadline", e);
        }
    }
}
