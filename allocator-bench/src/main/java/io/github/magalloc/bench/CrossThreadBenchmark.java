package io.github.magalloc.bench;

import io.github.magalloc.workload.SizeDistribution;
import io.netty.buffer.ByteBuf;
import org.jctools.queues.SpscArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import java.util.concurrent.TimeUnit;

/**
 * The proxy case: one thread allocates, another releases. The producer hands buffers to the consumer through a
 * bounded queue; the score to compare is the producer's ({@code produce}, Mops/s), the group total is twice it.
 *
 * <p>Queue: JCTools' SpscArrayQueue (already a dependency of the allocator). It is lock-free and allocates
 * nothing per element, so it costs a few ns and adds 0 B/op. ArrayBlockingQueue would add a contended lock
 * about as expensive as the allocation being measured (hiding differences between allocators), and a linked
 * queue would allocate a node per buffer (polluting gc.alloc.rate.norm).
 *
 * <p>Never hangs: both sides spin (then yield) on non-blocking offer/poll and give up as soon as JMH sets
 * {@link Control#stopMeasurement}. Buffers still queued at the end of an iteration are released in the
 * iteration teardown, which JMH runs after both threads have left the measurement loop.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@State(Scope.Group)
public class CrossThreadBenchmark {
    static final int QUEUE_CAPACITY = 1024;

    /** A fixed size in bytes, or a {@link SizeDistribution} name. */
    @Param({"256", "4096", "65536", "SOCKET_PROXY"})
    public String size;

    private SpscArrayQueue<ByteBuf> queue;
    private int[] sizes;
    /** Producer-only. */
    private int sizeCursor;

    /** Checks each of the two threads on its own (the group state's setup runs on only one of them). */
    @State(Scope.Thread)
    public static class Worker {
        @Setup(Level.Trial)
        public void verify(AllocatorState state) {
            state.verifyWorker();
        }
    }

    @Setup(Level.Trial)
    public void setup() {
        queue = new SpscArrayQueue<>(QUEUE_CAPACITY);
        sizes = SizeTable.of(size);
    }

    @Benchmark
    @Group("xthread")
    public void produce(AllocatorState state, Worker worker, Control control) {
        int size = sizes[sizeCursor];
        if (++sizeCursor == sizes.length) {
            sizeCursor = 0;
        }
        ByteBuf buf = state.allocate(size);
        for (int spins = 0; !queue.offer(buf); spins++) {
            if (control.stopMeasurement) {
                buf.release();
                return;
            }
            backOff(spins);
        }
    }

    @Benchmark
    @Group("xthread")
    public void consume(Worker worker, Control control) {
        ByteBuf buf;
        for (int spins = 0; (buf = queue.relaxedPoll()) == null; spins++) {
            if (control.stopMeasurement) {
                return;
            }
            backOff(spins);
        }
        buf.release();
    }

    /**
     * Spin briefly, then yield: on idle cores yield returns at once, but when the machine runs more threads than
     * cores it lets the other side run instead of burning the whole time slice waiting for it.
     */
    private static void backOff(int spins) {
        if (spins < 64) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    @TearDown(Level.Iteration)
    public void drain() {
        for (ByteBuf buf; (buf = queue.poll()) != null; ) {
            buf.release();
        }
    }
}
