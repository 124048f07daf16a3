package io.github.magalloc.e2e;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.util.Locale;

/** The allocators a server can be started with; each run gets a fresh instance so its metric is its own. */
public enum AllocatorKind {
    MAGALLOC, ADAPTIVE, POOLED, UNPOOLED;

    /** All prefer direct buffers, as Netty's defaults do on a platform with direct memory. */
    public ByteBufAllocator create() {
        switch (this) {
            case MAGALLOC:
                return new MagazineByteBufAllocator(true);
            case ADAPTIVE:
                return new AdaptiveByteBufAllocator(true);
            case POOLED:
                return new PooledByteBufAllocator(true);
            case UNPOOLED:
                return new UnpooledByteBufAllocator(true);
            default:
                throw new AssertionError(this);
        }
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static AllocatorKind parse(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }

    /** Heap plus direct memory the allocator reports as used, or -1 if it has no metric. */
    public static long usedMemory(ByteBufAllocator alloc) {
        if (!(alloc instanceof ByteBufAllocatorMetricProvider)) {
            return -1;
        }
        ByteBufAllocatorMetric m = ((ByteBufAllocatorMetricProvider) alloc).metric();
        return m.usedHeapMemory() + m.usedDirectMemory();
    }

    /** Gives pooled-but-free memory back where the allocator supports it (magalloc only, via its public API). */
    public static void trim(ByteBufAllocator alloc) {
        if (alloc instanceof MagazineByteBufAllocator) {
            ((MagazineByteBufAllocator) alloc).trim();
        }
    }
}
