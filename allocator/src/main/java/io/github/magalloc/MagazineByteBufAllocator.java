package io.github.magalloc;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * SCAFFOLDING ONLY: the public signature of magalloc's allocator, so that the benchmark and end-to-end modules can be
 * written in parallel. The pooled implementation replaces this class; nothing here is pooled yet.
 */
public final class MagazineByteBufAllocator extends AbstractByteBufAllocator implements ByteBufAllocatorMetricProvider {
    public static final MagazineByteBufAllocator DEFAULT = new MagazineByteBufAllocator();

    public MagazineByteBufAllocator() {
        this(true);
    }

    public MagazineByteBufAllocator(boolean preferDirect) {
        super(preferDirect);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    /** Gives back memory that is pooled but free. */
    public void trim() {
    }

    @Override
    public ByteBufAllocatorMetric metric() {
        return new ByteBufAllocatorMetric() {
            @Override
            public long usedHeapMemory() {
                return 0;
            }

            @Override
            public long usedDirectMemory() {
                return 0;
            }
        };
    }
}
