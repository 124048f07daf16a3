package io.github.magalloc.bench;

import io.github.magalloc.workload.AllocatorKind;
import io.netty.buffer.ByteBuf;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Large buffers with mixed lifetimes, the case where one long-lived buffer pins the memory around it: sizes
 * log-uniform from 16 KiB to 1 MiB; one allocation in {@value #LONG_EVERY} lives about 1,000 times longer than the
 * others (a long-lived slot is replaced every {@value #LONG_EVERY} ops, {@value #LONG_SLOTS} of them, so it lives
 * {@code 100 * 80 = 8,000} ops; a short-lived slot of {@value #SHORT_SLOTS} lives about 8). Score: ns per
 * allocate+release. Footprint: used memory against the bytes the live buffers asked for, through
 * {@link FootprintProfiler} ({@code mem.used/live} in the table): an allocator that cuts large buffers from
 * shared chunks freed only when their last buffer goes shows a high ratio here.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@State(Scope.Thread)
public class PinningBenchmark {
    static final int MIN_SIZE = 16 * 1024;
    static final int MAX_SIZE = 1024 * 1024;
    static final int LONG_EVERY = 100;
    static final int LONG_SLOTS = 80;
    static final int SHORT_SLOTS = 8;

    private final ByteBuf[] shortLived = new ByteBuf[SHORT_SLOTS];
    private final int[] shortSizes = new int[SHORT_SLOTS];
    private final ByteBuf[] longLived = new ByteBuf[LONG_SLOTS];
    private final int[] longSizes = new int[LONG_SLOTS];
    private int[] sizes;
    private int sizeCursor;
    private int op;
    private int shortCursor;
    private int longCursor;

    @Setup(Level.Trial)
    public void setup(AllocatorState state) {
        state.verifyWorker();
        sizes = SizeTable.logUniform(MIN_SIZE, MAX_SIZE);
        for (int i = 0; i < LONG_SLOTS; i++) {
            longSizes[i] = nextSize();
            longLived[i] = state.allocate(longSizes[i]);
        }
        for (int i = 0; i < SHORT_SLOTS; i++) {
            shortSizes[i] = nextSize();
            shortLived[i] = state.allocate(shortSizes[i]);
        }
    }

    @Benchmark
    public boolean allocRelease(AllocatorState state) {
        int size = nextSize();
        if (++op == LONG_EVERY) {
            op = 0;
            int slot = longCursor;
            longCursor = slot + 1 == LONG_SLOTS ? 0 : slot + 1;
            boolean released = longLived[slot].release();
            longSizes[slot] = size;
            longLived[slot] = state.allocate(size);
            return released;
        }
        int slot = shortCursor;
        shortCursor = slot + 1 == SHORT_SLOTS ? 0 : slot + 1;
        boolean released = shortLived[slot].release();
        shortSizes[slot] = size;
        shortLived[slot] = state.allocate(size);
        return released;
    }

    private int nextSize() {
        int size = sizes[sizeCursor];
        sizeCursor = sizeCursor + 1 == sizes.length ? 0 : sizeCursor + 1;
        return size;
    }

    @TearDown(Level.Iteration)
    public void recordFootprint(AllocatorState state) {
        long liveBytes = 0;
        for (int s : shortSizes) {
            liveBytes += s;
        }
        for (int s : longSizes) {
            liveBytes += s;
        }
        FootprintProbe.record(liveBytes, AllocatorKind.usedMemory(state.alloc));
    }

    @TearDown(Level.Trial)
    public void releaseAll() {
        for (ByteBuf b : shortLived) {
            b.release();
        }
        for (ByteBuf b : longLived) {
            b.release();
        }
    }
}
