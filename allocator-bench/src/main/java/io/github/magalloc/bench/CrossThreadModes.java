package io.github.magalloc.bench;

import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.TaskThread;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.ThreadExecutorMap;
import org.jctools.queues.SpscArrayQueue;

import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Why CrossThread's forks are bimodal on a shared machine. The same two threads alternate, every second, a
 * ping-pong of one cache line (the machine's core-to-core round trip; no allocator involved) and CrossThread's
 * workload (one thread allocates 256-byte direct buffers and hands them over an SPSC queue, the other releases
 * them). One line per second: the round trip and the producer's throughput. If throughput follows the round trip,
 * the swings come from where the host runs the two vCPUs, not from the allocator.
 *
 * <p>Usage: {@code CrossThreadModes [ALLOCATOR] [SECONDS] [PLAIN|EVENT_LOOP]}: ALLOCATOR as in the benchmarks'
 * {@code allocator} param (default MAGALLOC), SECONDS default 60, threads plain (default) or Netty event
 * executors (each side runs in its own {@code DefaultEventExecutor}, as the benchmark's event-loop workers do).
 * A diagnostic: no timing goes into tests.
 */
public final class CrossThreadModes {
    private static final int PING = 0;
    private static final int WORK = 1;
    private static final int STOP = 2;
    private static final long PING_NANOS = 200_000_000L;
    private static final long WORK_NANOS = 800_000_000L;

    /** The ping-pong word, at index 16 of its own array: 128 bytes from anything else in either direction. */
    private static final int BALL = 16;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] line = new long[2 * BALL + 1];
    private final SpscArrayQueue<ByteBuf> queue = new SpscArrayQueue<>(1024);
    private volatile int phase = PING;

    public static void main(String[] args) throws InterruptedException {
        AllocatorKind kind = AllocatorKind.parse(args.length > 0 ? args[0] : "MAGALLOC");
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        Workers workers = args.length > 2 ? Workers.valueOf(args[2]) : Workers.PLAIN;
        run(kind.create(true), seconds, workers, System.out);
    }

    /** Runs for {@code seconds} on two new threads of the kind {@code workers}, printing to {@code out}. */
    static void run(ByteBufAllocator allocator, int seconds, Workers workers, PrintStream out)
            throws InterruptedException {
        CrossThreadModes modes = new CrossThreadModes();
        TaskThread consumer = start(workers, modes::consume, "cross-thread-modes-consumer");
        TaskThread producer = start(workers, () -> modes.produce(allocator, seconds, out),
                "cross-thread-modes-producer");
        producer.awaitEnd();
        consumer.awaitEnd();
    }

    /**
     * EVENT_LOOP runs the task in its own Netty event executor, as {@link EventLoopExecutor} runs the benchmark: on
     * a bare {@code FastThreadLocalThread} Netty 4.2's adaptive allocator takes its shared magazines, not the
     * thread-local ones an event loop gets.
     */
    private static TaskThread start(Workers workers, Runnable task, String name) {
        return workers == Workers.EVENT_LOOP
                ? TaskThread.onOwnEventExecutor(task, new DefaultThreadFactory(name, true))
                : TaskThread.plain(task, name);
    }

    /** The producer's loop: each second a ping-pong, then the workload; one line per second, then the summary. */
    private void produce(ByteBufAllocator allocator, int seconds, PrintStream out) {
        List<double[]> rows = new ArrayList<>();
        out.println("producer cleans up fast thread locals (served as an event loop): "
            + FastThreadLocalThread.currentThreadWillCleanupFastThreadLocals()
            + "; runs in an event executor (adaptive's condition for its own magazines): "
            + (ThreadExecutorMap.currentExecutor() != null));
        out.println("second  round trip ns  producer Mops/s");
        for (int s = 1; s <= seconds; s++) {
            double roundTrip = pingPong();
            double mops = handOver(allocator);
            rows.add(new double[] {roundTrip, mops});
            out.printf(Locale.ROOT, "%6d  %13.1f  %15.2f%n", s, roundTrip, mops);
        }
        phase = STOP;
        summarize(rows, out);
    }

    /** Producer side of the ping-pong: the ball is even when it is our turn; returns ns per round trip. */
    private double pingPong() {
        phase = PING;
        return nanosPerStep(PING_NANOS, this::roundTrip);
    }

    private void roundTrip() {
        long mine = (long) LONGS.getVolatile(line, BALL) + 1;
        LONGS.setVolatile(line, BALL, mine);
        while ((long) LONGS.getVolatile(line, BALL) == mine) {
            Thread.onSpinWait();
        }
    }

    /** Allocates and hands over buffers for a while; returns Mops/s. Leaves the queue empty. */
    private double handOver(ByteBufAllocator allocator) {
        phase = WORK;
        double nanosPerBuffer = nanosPerStep(WORK_NANOS, () -> {
            ByteBuf buf = allocator.directBuffer(256);
            while (!queue.offer(buf)) {
                Thread.onSpinWait();
            }
        });
        while (!queue.isEmpty()) {
            Thread.onSpinWait();
        }
        return 1e3 / nanosPerBuffer;
    }

    /** Runs {@code step} in batches of 100 until {@code nanos} have passed; returns nanoseconds per step. */
    private static double nanosPerStep(long nanos, Runnable step) {
        long steps = 0;
        long start = System.nanoTime();
        long end = start + nanos;
        long now;
        do {
            for (int i = 0; i < 100; i++) {
                step.run();
            }
            steps += 100;
        } while ((now = System.nanoTime()) < end);
        return (double) (now - start) / steps;
    }

    /** Answers the ping (odd ball -> next even) or releases buffers, as the phase says. */
    private void consume() {
        for (int p; (p = phase) != STOP; ) {
            if (p == PING) {
                long ball = (long) LONGS.getVolatile(line, BALL);
                if ((ball & 1) == 1) {
                    LONGS.setVolatile(line, BALL, ball + 1);
                }
            } else {
                ByteBuf buf = queue.relaxedPoll();
                if (buf != null) {
                    buf.release();
                }
            }
        }
        for (ByteBuf buf; (buf = queue.poll()) != null; ) {
            buf.release();
        }
    }

    /**
     * Splits the seconds between the fastest and the slowest round trip (at their geometric mean, which falls
     * between two modes several times apart) and prints each group's median throughput.
     */
    private static void summarize(List<double[]> rows, PrintStream out) {
        double fastest = rows.stream().mapToDouble(r -> r[0]).min().orElse(Double.NaN);
        double slowest = rows.stream().mapToDouble(r -> r[0]).max().orElse(Double.NaN);
        double split = Math.sqrt(fastest * slowest);
        List<Double> near = new ArrayList<>();
        List<Double> far = new ArrayList<>();
        for (double[] r : rows) {
            (r[0] < split ? near : far).add(r[1]);
        }
        out.printf(Locale.ROOT, "round trip below %.0f ns: %d s, median %.2f Mops/s; above: %d s, median %.2f "
                + "Mops/s%n", split, near.size(), Medians.of(near), far.size(), Medians.of(far));
    }
}
