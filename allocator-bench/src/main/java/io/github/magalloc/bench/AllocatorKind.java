package io.github.magalloc.bench;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

/** The allocators compared side by side. Every benchmark takes one of these as its {@code allocator} param. */
public enum AllocatorKind {
    MAGALLOC {
        @Override
        public ByteBufAllocator create(boolean preferDirect) {
            return new MagazineByteBufAllocator(preferDirect);
        }
    },
    ADAPTIVE {
        @Override
        public ByteBufAllocator create(boolean preferDirect) {
            return new AdaptiveByteBufAllocator(preferDirect);
        }
    },
    /** Netty's shared default: thread caches only on FastThreadLocalThreads (4.2 default). */
    POOLED {
        @Override
        public ByteBufAllocator create(boolean preferDirect) {
            return PooledByteBufAllocator.DEFAULT;
        }
    },
    /** Pooled with Netty's default sizes but thread caches on every thread, plain threads included. */
    POOLED_ALL_THREADS {
        @Override
        public ByteBufAllocator create(boolean preferDirect) {
            return new PooledByteBufAllocator(preferDirect,
                    PooledByteBufAllocator.defaultNumHeapArena(), PooledByteBufAllocator.defaultNumDirectArena(),
                    PooledByteBufAllocator.defaultPageSize(), PooledByteBufAllocator.defaultMaxOrder(),
                    PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
                    true);
        }
    },
    UNPOOLED {
        @Override
        public ByteBufAllocator create(boolean preferDirect) {
            return new UnpooledByteBufAllocator(preferDirect);
        }
    };

    /** A fresh allocator (POOLED is Netty's shared DEFAULT instance, as applications use it). */
    public abstract ByteBufAllocator create(boolean preferDirect);

    /** Heap plus direct memory the allocator holds (chunks for pools, live buffers for unpooled). */
    public static long usedMemory(ByteBufAllocator allocator) {
        // All five implement ByteBufAllocatorMetricProvider; PooledByteBufAllocatorMetric sums its arenas' chunks.
        ByteBufAllocatorMetric metric = ((ByteBufAllocatorMetricProvider) allocator).metric();
        return metric.usedHeapMemory() + metric.usedDirectMemory();
    }

    /**
     * Gives back free pooled memory where the allocator has a way to. Returns what was done, for the report.
     * Must run on the thread that allocated (pooled thread caches are per thread).
     */
    public static String trim(ByteBufAllocator allocator) {
        if (allocator instanceof MagazineByteBufAllocator) {
            ((MagazineByteBufAllocator) allocator).trim();
            return "trim()";
        }
        if (allocator instanceof PooledByteBufAllocator) {
            // Nearest equivalent: empties this thread's cache back into the arenas; chunks stay mapped.
            return ((PooledByteBufAllocator) allocator).trimCurrentThreadCache() ? "trimCurrentThreadCache()" : "none (no cache)";
        }
        return "none (no API)";
    }
}
