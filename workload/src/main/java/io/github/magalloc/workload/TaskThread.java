package io.github.magalloc.workload;

import io.netty.util.concurrent.DefaultEventExecutor;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One task on a thread of its own, which ends with it: a plain thread, or the only task of its own Netty event
 * executor. Why an executor and not a bare {@code FastThreadLocalThread} for event-loop work: Netty 4.2's adaptive
 * allocator gives a thread its own magazines only while the thread runs in an event executor, so a comparison that
 * wants each allocator's event-loop behaviour must run the work where Netty runs it.
 */
public final class TaskThread {
    /** Waits until the task's thread has ended. */
    private interface End {
        void await() throws InterruptedException;
    }

    private final End end;
    private final Future<?> outcome;

    private TaskThread(End end, Future<?> outcome) {
        this.end = end;
        this.outcome = outcome;
    }

    /** Runs {@code task} on a new plain thread named {@code name}. */
    public static TaskThread plain(Runnable task, String name) {
        FutureTask<Void> outcome = new FutureTask<>(task, null);
        Thread thread = new Thread(outcome, name);
        thread.start();
        return new TaskThread(thread::join, outcome);
    }

    /**
     * Runs {@code task} as the only task of a new event executor on a thread from {@code threads}, then shuts the
     * executor down: its thread clears its {@code FastThreadLocal}s (the allocators' thread-local magazines) before
     * the executor's termination future completes.
     */
    public static TaskThread onOwnEventExecutor(Runnable task, ThreadFactory threads) {
        DefaultEventExecutor executor = new DefaultEventExecutor(threads);
        Future<?> outcome = executor.submit(task);
        executor.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        return new TaskThread(() -> executor.terminationFuture().await(), outcome);
    }

    /**
     * Waits until the task has finished and its thread has ended (an executor's: with its thread locals cleared),
     * then rethrows what the task threw, so that a failure on that thread is not lost.
     */
    public void awaitEnd() throws InterruptedException {
        end.await();
        try {
            outcome.get();
        } catch (ExecutionException e) {
            Throwable failure = e.getCause();
            if (failure instanceof RuntimeException) {
                throw (RuntimeException) failure;
            }
            if (failure instanceof Error) {
                throw (Error) failure;
            }
            throw new IllegalStateException("the task failed", failure);
        }
    }
}
