package io.github.magalloc.e2e;

import io.github.magalloc.workload.AllocatorKind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The idle-level check itself, on an allocator other than the one the integration test uses (Netty pooled). */
class IdleMemoryTest {
    @Test
    void heldMemoryAboveToleranceFailsTheCheckAndReleasingItPasses() {
        PooledByteBufAllocator alloc = new PooledByteBufAllocator(true);
        long idle = AllocatorKind.usedMemory(alloc);
        // Larger than a pooled chunk, so it is allocated and freed on its own and shows in the metric.
        ByteBuf held = alloc.directBuffer(8 << 20);
        assertThat(IdleMemory.excess(alloc, idle, 1 << 20)).contains("idle level was");
        held.release();
        assertThat(IdleMemory.excess(alloc, idle, 1 << 20)).isNull();
    }
}
