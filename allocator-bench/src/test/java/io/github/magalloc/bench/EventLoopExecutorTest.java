package io.github.magalloc.bench;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.ThreadExecutorMap;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class EventLoopExecutorTest {
    @Test
    void eachWorkerGetsItsOwnEventLoopAndKeepsItAcrossIterations() throws Exception {
        int workers = 3;
        EventLoopExecutor executor = new EventLoopExecutor(workers, "test");
        try {
            List<Thread> first = iteration(executor, workers);
            List<Thread> second = iteration(executor, workers);
            assertThat(new HashSet<>(first)).hasSize(workers);
            assertThat(second).isEqualTo(first); // JMH keys per-thread state by thread
            assertThat(first).allMatch(t -> t instanceof FastThreadLocalThread);
        } finally {
            executor.shutdown();
        }
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(executor.isTerminated()).isTrue();
    }

    /** Like a JMH iteration: submits one task per worker, all running at once (they meet at a latch). */
    private static List<Thread> iteration(EventLoopExecutor executor, int workers) throws Exception {
        CountDownLatch allStarted = new CountDownLatch(workers);
        List<Future<Thread>> futures = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            futures.add(executor.submit(() -> {
                allStarted.countDown();
                assertThat(allStarted.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(ThreadExecutorMap.currentExecutor()).isNotNull();
                return Thread.currentThread();
            }));
        }
        List<Thread> threads = new ArrayList<>();
        for (Future<Thread> f : futures) {
            threads.add(f.get(20, TimeUnit.SECONDS));
        }
        return threads;
    }
}
