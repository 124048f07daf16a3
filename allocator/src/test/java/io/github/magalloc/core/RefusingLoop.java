package io.github.magalloc.core;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.SingleThreadEventExecutor;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test's event loop that refuses the tasks given to it while {@link #refusing} is set, as a closed or harness
 * executor does ({@code RejectedExecutionException}), and counts what it refused; otherwise an ordinary loop.
 */
public final class RefusingLoop extends SingleThreadEventExecutor {
    /** Whether {@code execute} refuses now; set and cleared by the test. */
    public volatile boolean refusing;
    private final AtomicInteger refused = new AtomicInteger();

    public RefusingLoop(String name) {
        super(null, new DefaultThreadFactory(name), true);
    }

    /** Tasks refused so far. */
    public int refused() {
        return refused.get();
    }

    @Override
    protected void run() {
        do {
            Runnable task = takeTask();
            if (task != null) {
                runTask(task);
                updateLastExecutionTime();
            }
        } while (!confirmShutdown());
    }

    @Override
    public void execute(Runnable task) {
        if (refusing) {
            refused.incrementAndGet();
            throw new RejectedExecutionException("a loop that refuses on purpose");
        }
        super.execute(task);
    }
}
