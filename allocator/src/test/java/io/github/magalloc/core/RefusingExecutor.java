package io.github.magalloc.core;

import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.ThreadExecutorMap;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A test's executor that throws {@code refusal} from everything that would run a task and from every lifecycle method,
 * and answers {@code inEventLoop} true on any {@code FastThreadLocalThread}: the current executor of Netty's
 * microbenchmark harness threads ({@link #harness()}: {@code UnsupportedOperationException}), or a closed custom one.
 */
public final class RefusingExecutor extends AbstractEventExecutor {
    private final Supplier<RuntimeException> refusal;

    public RefusingExecutor(Supplier<RuntimeException> refusal) {
        this.refusal = refusal;
    }

    /** The executor of Netty's microbenchmark harness: refuses with {@code UnsupportedOperationException}. */
    public static RefusingExecutor harness() {
        return new RefusingExecutor(UnsupportedOperationException::new);
    }

    /**
     * One harness thread, as Netty's harness makes them: a {@code FastThreadLocalThread} (which cleans up its thread
     * locals) whose current executor is a {@link #harness()} executor.
     */
    public static ExecutorService harnessThread(String name) {
        return Executors.newSingleThreadExecutor(ThreadExecutorMap.apply(new DefaultThreadFactory(name), harness()));
    }

    @Override
    public boolean inEventLoop(Thread thread) {
        return thread instanceof FastThreadLocalThread;
    }

    @Override
    public void execute(Runnable command) {
        throw refusal.get();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        throw refusal.get();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                  TimeUnit unit) {
        throw refusal.get();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                     TimeUnit unit) {
        throw refusal.get();
    }

    @Override
    public boolean isShuttingDown() {
        throw refusal.get();
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        throw refusal.get();
    }

    @Override
    public Future<?> terminationFuture() {
        throw refusal.get();
    }

    @Override
    @Deprecated
    public void shutdown() {
        throw refusal.get();
    }

    @Override
    public boolean isShutdown() {
        throw refusal.get();
    }

    @Override
    public boolean isTerminated() {
        throw refusal.get();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        throw refusal.get();
    }
}
