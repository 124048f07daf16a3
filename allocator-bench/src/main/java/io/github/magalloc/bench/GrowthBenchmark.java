package io.github.magalloc.bench;

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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * A buffer that starts at 64 B and grows as a writer fills it: each round marks the buffer full and asks
 * {@code ensureWritable} for as much again, so capacity doubles 64, 128, ... up to {@code target}, and every
 * round pays the allocator's reallocation and the copy of the old contents.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@State(Scope.Thread)
public class GrowthBenchmark {
    @Param({"1024", "16384", "262144"})
    public int target;

    @Setup(Level.Trial)
    public void setup(AllocatorState state) {
        state.verifyWorker();
    }

    @Benchmark
    public int grow(AllocatorState state) {
        ByteBuf buf = state.allocate(64);
        while (buf.capacity() < target) {
            buf.writerIndex(buf.capacity());
            buf.ensureWritable(Math.min(buf.capacity(), target - buf.capacity()));
        }
        int capacity = buf.capacity();
        buf.release();
        return capacity;
    }
}
