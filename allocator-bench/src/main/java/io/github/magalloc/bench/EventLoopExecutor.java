package io.github.magalloc.bench;

import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * JMH custom executor that runs every benchmark worker inside its own Netty {@link DefaultEventExecutor}.
 * Select it in the forked JVM with
 * {@code -Djmh.executor=CUSTOM -Djmh.executor.class=io.github.magalloc.bench.EventLoopExecutor}
 * (see {@link #JVM_ARGS}).
 *
 * <p>Why not just a thread factory making FastThreadLocalThreads: Netty 4.2's adaptive allocator only gives a
 * thread its own magazines when {@code ThreadExecutorMap.currentExecutor()} is non-null, which is true only for
 * code running inside an EventExecutor. Running the JMH task as an event-loop task gives both: the thread is a
 * FastThreadLocalThread and it has a current executor, exactly as in a Netty server's I/O thread.
 *
 * <p>JMH keeps per-thread benchmark state keyed by thread, and submits exactly {@code maxThreads} tasks per
 * iteration; handing them out round robin gives every worker the same event loop in every iteration.
 */
public final class EventLoopExecutor extends AbstractExecutorService {
    public static final List<String> JVM_ARGS = List.of(
            "-Djmh.executor=CUSTOM", "-Djmh.executor.class=" + EventLoopExecutor.class.getName());

    private final EventExecutor[] loops;
    private final AtomicInteger next = new AtomicInteger();

    /** The signature JMH's CUSTOM executor type calls reflectively. */
    public EventLoopExecutor(int maxThreads, String prefix) {
        loops = new EventExecutor[maxThreads];
        DefaultThreadFactory threads = new DefaultThreadFactory("jmh-event-loop", true);
        for (int i = 0; i < maxThreads; i++) {
            loops[i] = new DefaultEventExecutor(threads);
        }
    }

    @Override
    public void execute(Runnable task) {
        loops[Math.floorMod(next.getAndIncrement(), loops.length)].execute(task);
    }

    @Override
    public void shutdown() {
        for (EventExecutor loop : loops) {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        return new ArrayList<>();
    }

    @Override
    public boolean isShutdown() {
        return Arrays.stream(loops).allMatch(EventExecutor::isShuttingDown);
    }

    @Override
    public boolean isTerminated() {
        return Arrays.stream(loops).allMatch(EventExecutor::isTerminated);
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (EventExecutor loop : loops) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !loop.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }
}
