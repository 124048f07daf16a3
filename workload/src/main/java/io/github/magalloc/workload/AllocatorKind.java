package io.github.magalloc.workload;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.util.Locale;

/**
 * The allocators compared by the benchmarks and the end-to-end runner. {@link #create} always returns a fresh
 * instance, POOLED included.
 *
 * <p>POOLED is {@code new PooledByteBufAllocator(preferDirect)}, not Netty's shared
 * {@code PooledByteBufAllocator.DEFAULT}. Both have the same configuration (Netty's default arenas, page size, order
 * and cache sizes; thread caches only on {@code FastThreadLocalThread}s), but a fresh instance holds only the memory of
 * the run that uses it: its metric and footprint are not inflated by chunks that earlier users of the shared DEFAULT
 * left in its arenas, every other kind is measured the same way, and {@code preferDirect} is honoured.
 */
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
    /** Netty's pooled allocator as configured by default: thread caches only on FastThreadLocalThreads. */
    POOLED {
        @Override
        public ByteBufAllocator create(boolean preferDirect) {
            return new PooledByteBufAllocator(preferDirect);
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

    /** A new allocator of this kind; {@code preferDirect} decides what {@code buffer()} returns. */
    public abstract ByteBufAllocator create(boolean preferDirect);

    /** The name in lower case, as command lines and tables spell it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind of that name, in any letter case. */
    public static AllocatorKind parse(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }

    /**
     * Heap plus direct memory the allocator holds (chunks for pools, live buffers for unpooled), or -1 if it reports
     * none. All kinds above report it; PooledByteBufAllocatorMetric sums its arenas' chunks.
     */
    public static long usedMemory(ByteBufAllocator allocator) {
        if (!(allocator instanceof ByteBufAllocatorMetricProvider)) {
            return -1;
        }
        ByteBufAllocatorMetric metric = ((ByteBufAllocatorMetricProvider) allocator).metric();
        return metric.usedHeapMemory() + metric.usedDirectMemory();
    }

    /**
     * Gives back free pooled memory where the allocator has a way to, and says what was done (for reports). Pooled
     * thread caches belong to their threads, so call it on every thread that allocated.
     */
    public static String trim(ByteBufAllocator allocator) {
        if (allocator instanceof MagazineByteBufAllocator) {
            ((MagazineByteBufAllocator) allocator).trim();
            return "trim()";
        }
        if (allocator instanceof PooledByteBufAllocator) {
            // The nearest equivalent: empties this thread's cache back into the arenas; chunks stay mapped.
            return ((PooledByteBufAllocator) allocator).trimCurrentThreadCache() ? "trimCurrentThreadCache()"
                    : "none (no cache)";
        }
        return "none (no API)";
    }
}
