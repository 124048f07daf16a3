package io.github.magalloc.workload;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The request-per-virtual-thread scenario of the benchmark: what it runs, on what, and that it reports failures. */
@Timeout(60)
class VirtualThreadRequestsTest {
    private static ThreadFactory virtualThreads() {
        ThreadFactory threads = VirtualThreadRequests.virtualThreads().orElse(null);
        Assumptions.assumeTrue(threads != null, VirtualThreadRequests.unavailableReason());
        return threads;
    }

    @Test
    void virtualThreadsAreThereFromJdk21Only() {
        assertThat(VirtualThreadRequests.virtualThreads().isPresent()).isEqualTo(Runtime.version().feature() >= 21);
    }

    @Test
    void eachTaskRunsOnAVirtualThreadOfItsOwnAndReleasesItsFourBuffers() throws Exception {
        ThreadFactory virtual = virtualThreads();
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        CountingAllocator allocator = new CountingAllocator();
        ThreadFactory recording = task -> virtual.newThread(() -> {
            threads.add(Thread.currentThread());
            task.run();
        });
        new VirtualThreadRequests(allocator, true, 50, recording).runRound(2_000);
        assertThat(threads).hasSize(2_000).allMatch(t -> t.toString().startsWith("VirtualThread"));
        assertThat(allocator.allocated.get()).isEqualTo(8_000);
        assertThat(allocator.mostLive.get()).as("buffers live at once: 4 per task, 50 tasks at most").isBetween(4, 200);
        assertThat(allocator.live()).isZero();
    }

    @Test
    void aTaskThatFailsFailsTheRound() {
        ThreadFactory virtual = virtualThreads();
        ByteBufAllocator failing = new CountingAllocator() {
            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                throw new IllegalStateException("no memory today");
            }
        };
        assertThatThrownBy(() -> new VirtualThreadRequests(failing, true, 10, virtual).runRound(100))
            .hasMessage("a task failed").hasRootCauseMessage("no memory today");
    }

    /** Unpooled direct buffers, counted, with their releases. */
    private static class CountingAllocator extends AbstractByteBufAllocator {
        final AtomicInteger allocated = new AtomicInteger();
        final AtomicInteger mostLive = new AtomicInteger();
        /** By identity: a released buffer's hashCode() reads its bytes. Guarded by itself. */
        private final Set<ByteBuf> live = Collections.newSetFromMap(new IdentityHashMap<>());

        CountingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            throw new UnsupportedOperationException("the scenario asked for direct buffers");
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            allocated.incrementAndGet();
            ByteBuf buf = UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
            synchronized (live) {
                live.add(buf);
            }
            mostLive.accumulateAndGet(live(), Math::max);
            return buf;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }

        int live() {
            synchronized (live) {
                live.removeIf(buf -> buf.refCnt() == 0);
                return live.size();
            }
        }
    }
}
