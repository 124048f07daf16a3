package io.github.magalloc.bench;

import io.github.magalloc.workload.AllocatorKind;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A server's allocation pattern: each worker keeps {@code maxLive} buffers alive; one op releases the buffer in
 * the next slot of a pre-shuffled order and puts a new buffer of the next size from the distribution there.
 * Buffers therefore die in random order and live for about {@code maxLive} ops, which fragments chunks the way
 * real traffic does. Steady-state footprint goes to {@link FootprintProfiler} at the end of every iteration.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@State(Scope.Thread)
public class AllocPatternBenchmark {
    @Param({"128", "1024", "8192", "65536"})
    public int maxLive;

    @Param({"SOCKET_PROXY", "API_GATEWAY"})
    public SizeDistribution distribution;

    /** Write 9 bytes into each new buffer (both ends) and read them back before it is released. */
    @Param({"false", "true"})
    public boolean readWrite;

    private ByteBuf[] live;
    /** Size asked for by each live buffer (capacity() could be rounded up by an allocator, flattering it). */
    private int[] liveSizes;
    private int[] sizes;
    /** Concatenated random permutations of 0..maxLive-1: every slot is replaced once per round. */
    private int[] slotOrder;
    private int sizeCursor;
    private int slotCursor;

    @Setup(Level.Trial)
    public void setup(AllocatorState state) {
        state.verifyWorker();
        sizes = SizeTable.of(distribution.name());
        slotOrder = shuffledRounds(maxLive, Math.max(1, SizeTable.LENGTH / maxLive));
        live = new ByteBuf[maxLive];
        liveSizes = new int[maxLive];
        for (int i = 0; i < maxLive; i++) {
            int size = nextSize();
            liveSizes[i] = size;
            live[i] = allocateAndWrite(state, size);
        }
    }

    @Benchmark
    public long allocRelease(AllocatorState state) {
        int slot = slotOrder[slotCursor];
        if (++slotCursor == slotOrder.length) {
            slotCursor = 0;
        }
        ByteBuf old = live[slot];
        long check = readWrite ? readBack(old) : 0;
        old.release();
        int size = nextSize();
        liveSizes[slot] = size;
        live[slot] = allocateAndWrite(state, size);
        return check;
    }

    private int nextSize() {
        int size = sizes[sizeCursor];
        if (++sizeCursor == sizes.length) {
            sizeCursor = 0;
        }
        return size;
    }

    private ByteBuf allocateAndWrite(AllocatorState state, int size) {
        ByteBuf buf = state.allocate(size);
        if (readWrite) {
            // Sizes are at least 8 B; the last byte sits in another cache line for most sizes.
            buf.writeLong(size);
            buf.setByte(size - 1, size);
            buf.writerIndex(size);
        }
        return buf;
    }

    private static long readBack(ByteBuf buf) {
        return buf.getLong(0) + buf.getByte(buf.writerIndex() - 1);
    }

    @TearDown(Level.Iteration)
    public void recordFootprint(AllocatorState state) {
        long liveBytes = 0;
        for (int size : liveSizes) {
            liveBytes += size;
        }
        FootprintProbe.record(liveBytes, AllocatorKind.usedMemory(state.alloc));
    }

    @TearDown(Level.Trial)
    public void releaseAll() {
        for (int i = 0; i < live.length; i++) {
            live[i].release();
            live[i] = null;
        }
    }

    /** Slot order: {@code rounds} random permutations of 0..slots-1, seeded (the same for every allocator). */
    public static int[] shuffledRounds(int slots, int rounds) {
        SplittableRandom random = new SplittableRandom(SizeTable.SEED + slots);
        int[] order = new int[slots * rounds];
        for (int r = 0; r < rounds; r++) {
            int base = r * slots;
            for (int i = 0; i < slots; i++) {
                order[base + i] = i;
            }
            for (int i = slots - 1; i > 0; i--) { // Fisher-Yates
                int j = random.nextInt(i + 1);
                int t = order[base + i];
                order[base + i] = order[base + j];
                order[base + j] = t;
            }
        }
        return order;
    }
}
