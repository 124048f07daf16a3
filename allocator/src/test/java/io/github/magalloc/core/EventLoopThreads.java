package io.github.magalloc.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Event-loop threads for tests (Netty's {@link DefaultThreadFactory} makes threads that clean up their thread
 * locals, so they get magazines of their own), with what a step throws rethrown on the test's thread: a failed
 * assertion on the event loop fails the test.
 */
final class EventLoopThreads {
    private EventLoopThreads() {
    }

    /**
     * Runs {@code body} on a new event-loop thread and waits until the thread has ended (its magazine ended with
     * it), then rethrows what the body threw.
     */
    static void runToEnd(Callable<Void> body) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread loop = new DefaultThreadFactory("test-event-loop").newThread(() -> {
            try {
                body.call();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        loop.start();
        loop.join();
        if (failure.get() instanceof Exception) {
            throw (Exception) failure.get();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    /**
     * A buffer of {@code capacity} bytes allocated on an event loop that has ended since: its object's home is that
     * loop's, so growth on another loop brings another thread's object into that loop's chunk.
     */
    static ByteBuf bufferOfAnEndedEventLoop(ByteBufAllocator allocator, int capacity) throws Exception {
        AtomicReference<ByteBuf> allocated = new AtomicReference<>();
        runToEnd(() -> {
            allocated.set(allocator.directBuffer(capacity));
            return null;
        });
        return allocated.get();
    }

    /** One event-loop thread that runs the steps handed to it one at a time. */
    static final class Steps implements AutoCloseable {
        private final ExecutorService loop =
            Executors.newSingleThreadExecutor(new DefaultThreadFactory("test-event-loop-steps"));

        void run(Runnable step) throws Exception {
            try {
                loop.submit(step).get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError(e.getCause());
            }
        }

        /** Waits for the loop to end; an interrupt fails the test that closes it (AutoCloseable's close may not). */
        @Override
        public void close() {
            loop.shutdown();
            try {
                if (!loop.awaitTermination(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("the event loop did not end within 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while the event loop ended", e);
            }
        }
    }
}
