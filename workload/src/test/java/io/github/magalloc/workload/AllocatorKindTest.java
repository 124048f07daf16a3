package io.github.magalloc.workload;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AllocatorKindTest {
    @Test
    void everyKindIsAFreshInstanceThatHonoursPreferDirect() {
        for (AllocatorKind kind : AllocatorKind.values()) {
            ByteBufAllocator a = kind.create(true);
            assertThat(kind.create(true)).as(kind.name()).isNotSameAs(a);
            assertThat(a).as(kind.name()).isNotSameAs(PooledByteBufAllocator.DEFAULT);
            for (boolean direct : new boolean[] {true, false}) {
                ByteBuf buf = kind.create(direct).buffer(64);
                try {
                    assertThat(buf.isDirect()).as("%s preferDirect %s", kind, direct).isEqualTo(direct);
                } finally {
                    buf.release();
                }
            }
        }
    }

    @Test
    void pooledHasNettysDefaultConfiguration() {
        PooledByteBufAllocator pooled = (PooledByteBufAllocator) AllocatorKind.POOLED.create(true);
        PooledByteBufAllocator shared = PooledByteBufAllocator.DEFAULT;
        assertThat(pooled.metric().numDirectArenas()).isEqualTo(shared.metric().numDirectArenas());
        assertThat(pooled.metric().numHeapArenas()).isEqualTo(shared.metric().numHeapArenas());
        assertThat(pooled.metric().chunkSize()).isEqualTo(shared.metric().chunkSize());
        assertThat(pooled.metric().smallCacheSize()).isEqualTo(shared.metric().smallCacheSize());
        assertThat(pooled.metric().normalCacheSize()).isEqualTo(shared.metric().normalCacheSize());
    }

    @Test
    void labelsParseBack() {
        for (AllocatorKind kind : AllocatorKind.values()) {
            assertThat(AllocatorKind.parse(kind.label())).isEqualTo(kind);
        }
        assertThat(AllocatorKind.parse(" Pooled ")).isEqualTo(AllocatorKind.POOLED);
    }

    @Test
    void usedMemoryAndTrimSayWhatTheyCould() {
        MagazineByteBufAllocator magalloc = new MagazineByteBufAllocator(true);
        ByteBuf buf = magalloc.directBuffer(1024);
        assertThat(AllocatorKind.usedMemory(magalloc)).isPositive();
        buf.release();
        assertThat(AllocatorKind.trim(magalloc)).isEqualTo("trim()");
        assertThat(AllocatorKind.trim(new UnpooledByteBufAllocator(true))).isEqualTo("none (no API)");
        assertThat(AllocatorKind.usedMemory(ByteBufAllocator.DEFAULT)).isGreaterThanOrEqualTo(0);
    }
}
