package io.github.magalloc.bench;

import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.ThreadExecutorMap;

import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * JMH custom executor shaped like the harness of Netty's own {@code microbench} module (its
 * {@code AbstractMicrobenchmark.HarnessExecutor}, on which the mimalloc-based peer allocator publishes its
 * allocation-pattern numbers): a thread pool of {@code FastThreadLocalThread}s, each with a current Netty executor
 * ({@link ThreadExecutorMap}) whose {@code inEventLoop} is true on them and whose {@code execute} and
 * {@code schedule*} throw {@code UnsupportedOperationException}. So Netty's adaptive allocator gives the workers
 * magazines of their own, and an allocator that asks the executor for maintenance tasks is refused every time.
 * Select it in the forked JVM with {@link #JVM_ARGS}.
 */
public final class HarnessExecutor extends ThreadPoolExecutor {
    public static final List<String> JVM_ARGS = List.of(
            "-Djmh.executor=CUSTOM", "-Djmh.executor.class=" + HarnessExecutor.class.getName());

    /** The signature JMH's CUSTOM executor type calls reflectively. */
    public HarnessExecutor(int maxThreads, String prefix) {
        super(maxThreads, maxThreads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                ThreadExecutorMap.apply(new DefaultThreadFactory(prefix, true), new RefusingExecutor()));
    }

    /** True if {@code executor} is the current executor of this harness's threads. */
    static boolean isHarness(EventExecutor executor) {
        return executor instanceof RefusingExecutor;
    }

    /** Refuses every task, as the harness's executor does; tells its own threads that they are in its loop. */
    private static final class RefusingExecutor extends AbstractEventExecutor {
        @Override
        public boolean inEventLoop(Thread thread) {
            return thread instanceof FastThreadLocalThread;
        }

        @Override
        public void execute(Runnable command) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                      TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                         TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isShuttingDown() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Future<?> terminationFuture() {
            throw new UnsupportedOperationException();
        }

        @Override
        @Deprecated
        public void shutdown() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isShutdown() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isTerminated() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }
    }
}
