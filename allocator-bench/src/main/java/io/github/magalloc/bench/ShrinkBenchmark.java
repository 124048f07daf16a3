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
 * A read buffer cut to its bytes, as a receive allocator or Elasticsearch's {@code NettyByteBufSizer} does: allocate
 * {@code capacity} bytes, write {@code bytes} (one segment of a slow client), {@code capacity(bytes)}, release. With
 * {@code shrink=false} the same without the cut, which gives its cost.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@State(Scope.Thread)
public class ShrinkBenchmark {
    @Param("65536")
    public int capacity;

    @Param("1460")
    public int bytes;

    @Param({"true", "false"})
    public boolean shrink;

    private byte[] segment;

    @Setup(Level.Trial)
    public void setup(AllocatorState state) {
        state.verifyWorker();
        segment = new byte[bytes];
    }

    @Benchmark
    public int cut(AllocatorState state) {
        ByteBuf buf = state.allocate(capacity);
        buf.writeBytes(segment);
        if (shrink) {
            buf.capacity(bytes);
        }
        int kept = buf.capacity();
        buf.release();
        return kept;
    }
}
