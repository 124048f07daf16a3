package io.github.magalloc.bench;

import io.github.magalloc.workload.SizeDistribution;
import io.netty.buffer.ByteBuf;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * N threads (JMH {@code -t}, default 2) share one allocator, each keeping a small FIFO window of live buffers.
 * With {@code threads=PLAIN} this is the shared-magazine path under contention; with EVENT_LOOP each thread
 * should get its own magazines and scale.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@Threads(2)
@State(Scope.Thread)
public class ConcurrentBenchmark {
    /** A fixed size in bytes, or a {@link SizeDistribution} name. */
    @Param({"256", "SOCKET_PROXY"})
    public String size;

    private static final int WINDOW = 64;

    private final ByteBuf[] window = new ByteBuf[WINDOW];
    private int[] sizes;
    private int sizeCursor;
    private int slot;

    @Setup(Level.Trial)
    public void setup(AllocatorState state) {
        state.verifyWorker();
        sizes = SizeTable.of(size);
        for (int i = 0; i < WINDOW; i++) {
            window[i] = state.allocate(sizes[i]);
        }
        sizeCursor = WINDOW;
    }

    @Benchmark
    public boolean allocRelease(AllocatorState state) {
        int size = sizes[sizeCursor];
        if (++sizeCursor == sizes.length) {
            sizeCursor = 0;
        }
        boolean freed = window[slot].release();
        window[slot] = state.allocate(size);
        slot = (slot + 1) & (WINDOW - 1);
        return freed;
    }

    @TearDown(Level.Trial)
    public void releaseAll() {
        for (int i = 0; i < WINDOW; i++) {
            window[i].release();
            window[i] = null;
        }
    }
}
