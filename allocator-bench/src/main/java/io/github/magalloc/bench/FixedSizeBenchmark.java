package io.github.magalloc.bench;

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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/** The allocator's fastest path: allocate one buffer of a fixed size and release it at once (netty#13976). */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@State(Scope.Thread)
public class FixedSizeBenchmark {
    @Param({"256", "4096", "65536", "262144", "1048576"})
    public int size;

    @Setup(Level.Trial)
    public void setup(AllocatorState state) {
        state.verifyWorker();
    }

    @Benchmark
    public boolean allocRelease(AllocatorState state) {
        return state.allocate(size).release();
    }
}
