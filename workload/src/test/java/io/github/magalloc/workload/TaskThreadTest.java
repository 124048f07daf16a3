package io.github.magalloc.workload;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.ThreadExecutorMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(30)
class TaskThreadTest {
    @Test
    void anEventExecutorTaskRunsInItsExecutorAndItsThreadLocalsAreClearedByTheEnd() throws Exception {
        AtomicBoolean inExecutor = new AtomicBoolean();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicBoolean removed = new AtomicBoolean();
        FastThreadLocal<Object> local = new FastThreadLocal<>() {
            @Override
            protected void onRemoval(Object value) throws InterruptedException {
                Thread.sleep(200); // so that an awaitEnd returning at the task's end, not the thread's, is caught
                removed.set(true);
            }
        };
        TaskThread task = TaskThread.onOwnEventExecutor(() -> {
            inExecutor.set(ThreadExecutorMap.currentExecutor() != null);
            ranOn.set(Thread.currentThread());
            local.set("magazine");
        }, new DefaultThreadFactory("task-thread-test"));
        task.awaitEnd();
        assertThat(inExecutor).as("runs where adaptive gives a thread its own magazines").isTrue();
        assertThat(removed).as("the thread's FastThreadLocals were cleared before awaitEnd returned").isTrue();
        ranOn.get().join(10_000);
        assertThat(ranOn.get().isAlive()).as("the executor's thread ended").isFalse();
    }

    @Test
    void aPlainTaskRunsOnAPlainThreadThatHasEndedAfterwards() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicBoolean inExecutor = new AtomicBoolean(true);
        TaskThread task = TaskThread.plain(() -> {
            ranOn.set(Thread.currentThread());
            inExecutor.set(ThreadExecutorMap.currentExecutor() != null);
        }, "plain-task");
        task.awaitEnd();
        assertThat(ranOn.get().getName()).isEqualTo("plain-task");
        assertThat(ranOn.get().isAlive()).isFalse();
        assertThat(inExecutor).isFalse();
    }

    @Test
    void whatTheTaskThrewIsRethrownByAwaitEnd() {
        IllegalArgumentException thrown = new IllegalArgumentException("from the task");
        assertThatThrownBy(() -> TaskThread.plain(() -> {
            throw thrown;
        }, "failing-plain").awaitEnd()).isSameAs(thrown);
        assertThatThrownBy(() -> TaskThread.onOwnEventExecutor(() -> {
            throw thrown;
        }, new DefaultThreadFactory("failing-loop")).awaitEnd()).isSameAs(thrown);
    }
}
