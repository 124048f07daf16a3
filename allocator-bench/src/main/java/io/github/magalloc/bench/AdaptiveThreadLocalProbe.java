package io.github.magalloc.bench;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;

import java.lang.reflect.Field;

/**
 * Tells whether Netty's adaptive allocator gave the calling thread its own magazines. Netty exposes no API for
 * this, so it reads, by reflection, the FastThreadLocal fields of the two AdaptivePoolingAllocators (direct and
 * heap) that AdaptiveByteBufAllocator holds: in 4.2.20 {@code threadLocalGroup}, whose initial value is null unless
 * the thread runs inside an EventExecutor. It looks fields up by type, not name, and fails loudly if Netty's
 * layout no longer matches, rather than skipping the check.
 */
final class AdaptiveThreadLocalProbe {
    private AdaptiveThreadLocalProbe() {
    }

    /** Call after this thread allocated at least once from {@code allocator}. */
    static boolean usesThreadLocalMagazines(ByteBufAllocator allocator) {
        if (!(allocator instanceof AdaptiveByteBufAllocator)) {
            throw new IllegalArgumentException("not an AdaptiveByteBufAllocator: " + allocator);
        }
        int threadLocals = 0;
        boolean anySet = false;
        try {
            for (Field pool : AdaptiveByteBufAllocator.class.getDeclaredFields()) {
                if (!pool.getType().getName().equals("io.netty.buffer.AdaptivePoolingAllocator")) {
                    continue;
                }
                pool.setAccessible(true);
                Object poolingAllocator = pool.get(allocator);
                for (Field field : pool.getType().getDeclaredFields()) {
                    if (!FastThreadLocal.class.isAssignableFrom(field.getType())) {
                        continue;
                    }
                    threadLocals++;
                    field.setAccessible(true);
                    FastThreadLocal<?> local = (FastThreadLocal<?>) field.get(poolingAllocator);
                    // null field: Netty's low-memory mode disabled thread-local magazines altogether.
                    anySet |= local != null && local.getIfExists() != null;
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot inspect AdaptiveByteBufAllocator internals; update this probe", e);
        }
        if (threadLocals == 0) {
            throw new IllegalStateException("AdaptivePoolingAllocator has no FastThreadLocal field any more; "
                    + "update " + AdaptiveThreadLocalProbe.class.getSimpleName());
        }
        return anySet;
    }
}
