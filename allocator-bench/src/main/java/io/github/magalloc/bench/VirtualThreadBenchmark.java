package io.github.magalloc.bench;

import io.github.magalloc.workload.VirtualThreadRequests;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * A request per virtual thread ({@link VirtualThreadRequests}): one operation is one task, a virtual thread of its
 * own that allocates a 256 B, 1 KiB, 4 KiB and 16 KiB buffer, fills them, yields once, checks them, releases them
 * and ends; rounds of {@value #TASKS} tasks, at most {@value #CONCURRENCY} at a time. The score is the time per
 * task and {@code gc.alloc.rate.norm} the heap bytes per task (JMH counts the allocations of every thread, the
 * virtual threads' carriers included), the thread's own included: {@code -p buffers=false} measures the task
 * alone. Needs JDK 21+; the side-by-side runner skips it on older JDKs with a line that says so.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.XMS, BenchJvm.XMX, BenchJvm.NO_LEAK_DETECTION, BenchJvm.REFLECTION,
        BenchJvm.OPEN_NIO})
@State(Scope.Benchmark)
public class VirtualThreadBenchmark {
    static final int TASKS = VirtualThreadRequests.DEFAULT_TASKS;
    static final int CONCURRENCY = VirtualThreadRequests.DEFAULT_CONCURRENCY;

    /** false: the tasks allocate nothing, which is the cost of a virtual thread alone. */
    @Param({"true"})
    public boolean buffers;

    private VirtualThreadRequests requests;

    @Setup(Level.Trial)
    public void setup(AllocatorState state) {
        ThreadFactory threads = VirtualThreadRequests.virtualThreads()
                .orElseThrow(() -> new IllegalStateException(VirtualThreadRequests.unavailableReason()));
        state.verifyWorker();
        requests = new VirtualThreadRequests(buffers ? state.alloc : null, state.direct, CONCURRENCY, threads);
    }

    @Benchmark
    @OperationsPerInvocation(TASKS)
    public void tasks() {
        requests.runRound(TASKS);
    }
}
