package io.github.magalloc.bench;

import io.github.magalloc.workload.AllocatorKind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.ThreadExecutorMap;

import java.util.List;

/**
 * The {@code threads} param: which kind of thread the JMH workers are. The executor is a JVM-wide JMH setting,
 * so the param cannot choose it; instead each mode says which JVM args select it, and {@link #verify} fails the
 * trial loudly when the param and the actual worker thread disagree (so a mislabelled result cannot appear).
 */
public enum Workers {
    /** Inside a Netty DefaultEventExecutor: FastThreadLocalThread with a current executor (a Netty I/O thread). */
    EVENT_LOOP(EventLoopExecutor.JVM_ARGS),
    /** JMH's default executor: plain java.lang.Threads (application threads, the shared-magazine path). */
    PLAIN(List.of()),
    /**
     * Netty's microbenchmark harness ({@link HarnessExecutor}): FastThreadLocalThreads whose current executor refuses
     * every task, so an allocator's maintenance tasks are refused.
     */
    HARNESS(HarnessExecutor.JVM_ARGS),
    /**
     * JMH's default executor, whose plain threads start a virtual thread for every task they run (JDK 21+): the
     * benchmarks of this kind ({@link VirtualThreadBenchmark}) measure the virtual threads' allocations.
     */
    VIRTUAL(List.of());

    /** The kinds whose JMH workers run the benchmark themselves: every benchmark but the virtual-thread one. */
    public static final List<Workers> PLATFORM = List.of(EVENT_LOOP, PLAIN);

    /** JVM args of the forked benchmark JVM that make its workers this kind of thread. */
    public final List<String> jvmArgs;

    Workers(List<String> jvmArgs) {
        this.jvmArgs = jvmArgs;
    }

    /** True when the calling thread is what this mode promises. */
    public boolean matchesCurrentThread() {
        boolean fastThreadLocal = Thread.currentThread() instanceof FastThreadLocalThread;
        EventExecutor executor = ThreadExecutorMap.currentExecutor();
        switch (this) {
            case EVENT_LOOP:
                return fastThreadLocal && executor != null && !HarnessExecutor.isHarness(executor);
            case HARNESS:
                return fastThreadLocal && HarnessExecutor.isHarness(executor);
            default: // PLAIN, and VIRTUAL: the JMH worker is plain, its tasks virtual
                return !fastThreadLocal && executor == null;
        }
    }

    /** Whether Netty's adaptive allocator gives these workers magazines of their own: where they have an executor. */
    private boolean hasThreadLocalMagazines() {
        return this == EVENT_LOOP || this == HARNESS;
    }

    /**
     * Call from a worker thread in {@code @Setup(Level.Trial)}. Checks the thread kind, then that Netty's
     * adaptive allocator really takes its thread-local path on event loops (and the shared path on plain threads).
     */
    public void verify(AllocatorKind kind, ByteBufAllocator allocator) {
        if (!matchesCurrentThread()) {
            throw new IllegalStateException("threads=" + this + " but the worker is " + Thread.currentThread()
                    + (jvmArgs.isEmpty() ? "; run the fork without -Djmh.executor=CUSTOM"
                    : "; run the fork with " + String.join(" ", jvmArgs)));
        }
        if (kind == AllocatorKind.ADAPTIVE) {
            ByteBuf probe = allocator.buffer(64); // creates this thread's magazines if it gets any
            probe.release();
            boolean threadLocal = AdaptiveThreadLocalProbe.usesThreadLocalMagazines(allocator);
            if (threadLocal != hasThreadLocalMagazines()) {
                throw new IllegalStateException("AdaptiveByteBufAllocator thread-local magazines: " + threadLocal
                        + " on threads=" + this + " (heap " + Runtime.getRuntime().maxMemory()
                        + " B; Netty disables them at 512 MiB or less)");
            }
        }
    }
}
