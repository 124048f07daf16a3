package io.github.magalloc.bench.floor;

import io.github.magalloc.bench.BenchJvm;
import io.github.magalloc.bench.Workers;
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
 * The floor under {@code FixedSizeBenchmark}: the least work any pooled allocator must do for one allocate and
 * release on the owning thread. A thread-local LIFO pop and push of a segment index and of a buffer object,
 * the object re-initialised with only the fields that change and Netty's reference-count reset, and released
 * through Netty's own {@code release()} (its reference-count decrement), exactly as a magalloc buffer is.
 * Left out, because a real allocator may avoid them: finding the thread's pool (JMH hands the state in), the size
 * class (one size), growing the pool, cross-thread releases, and the memory itself (no bytes are touched).
 *
 * <p>The runner reports FixedSize of each allocator as a multiple of this score (same size); the parameters
 * {@code allocator=FLOOR}, {@code direct} and {@code threads} only label the row like the allocators' rows.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@State(Scope.Thread)
public class FloorBenchmark {
    /** A label that makes the row read like an allocator's row in the side-by-side table. */
    @Param("FLOOR")
    public String allocator;

    @Param({"256", "4096", "65536", "1048576"})
    public int size;

    /** A label: the floor touches no memory, direct or heap. */
    @Param("true")
    public boolean direct;

    @Param({"EVENT_LOOP", "PLAIN"})
    public Workers threads;

    private FloorPool pool;

    @Setup(Level.Trial)
    public void setup() {
        if (!threads.matchesCurrentThread()) {
            throw new IllegalStateException("threads=" + threads + " but the worker is " + Thread.currentThread());
        }
        pool = new FloorPool(size, 64);
    }

    @Benchmark
    public boolean allocRelease() {
        return pool.allocate(size).release();
    }
}
