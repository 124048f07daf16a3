package io.github.magalloc.bench.stream;

import io.github.magalloc.compare.ByteBufComparison;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * ByteBufComparison against Netty's ByteBufUtil.compare/equals. The two buffers are equal in their first half and
 * differ at index size/2. Run with -Dmagalloc.compare.arrayIntrinsicMin / nioIntrinsicMin (0 or 1000000) in
 * -jvmArgsAppend to force one strategy and find the crossover lengths.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CompareBenchmark {
    @Param({"8", "16", "32", "64", "128", "257", "1024", "4096"})
    public int size;

    @Param({"heap", "direct"})
    public String memory;

    private ByteBuf a;
    private ByteBuf b;

    @Setup
    public void setUp() {
        byte[] content = new byte[size];
        new Random(size).nextBytes(content);
        a = buffer(content);
        content[size / 2] ^= 0x5A;
        b = buffer(content);
    }

    private ByteBuf buffer(byte[] content) {
        ByteBuf buf = "heap".equals(memory) ? Unpooled.buffer(size) : Unpooled.directBuffer(size);
        return buf.writeBytes(content);
    }

    @TearDown
    public void tearDown() {
        a.release();
        b.release();
    }

    @Benchmark
    public int compareMagalloc() {
        return ByteBufComparison.compare(a, b);
    }

    @Benchmark
    public int compareNetty() {
        return ByteBufUtil.compare(a, b);
    }

    @Benchmark
    public boolean equalsMagalloc() {
        return ByteBufComparison.equals(a, b);
    }

    @Benchmark
    public boolean equalsNetty() {
        return ByteBufUtil.equals(a, b);
    }
}
