package io.github.magalloc.e2e;

import io.github.magalloc.workload.AllocatorKind;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

import java.util.List;

/**
 * "Allocator used memory back to its idle level": the idle level is the metric after warm-up, with no connection open
 * and after trim(); after the load it must not exceed that level by more than {@link #TOLERANCE_BYTES}.
 */
final class IdleMemory {
    /**
     * Slack for what an allocator may legitimately keep after a trim (per-thread caches it cannot reach from outside
     * their thread, one partly used chunk). Overridable with -De2e.idleToleranceBytes.
     */
    static final long TOLERANCE_BYTES = Long.getLong("e2e.idleToleranceBytes", 1L << 20);

    private IdleMemory() {
    }

    /** trim() on the calling thread and on every event loop, where thread-local caches can be reached. */
    static void trimEverywhere(ByteBufAllocator alloc, List<EventLoopGroup> groups) {
        AllocatorKind.trim(alloc);
        for (EventLoopGroup g : groups) {
            for (EventExecutor e : g) {
                e.submit(() -> AllocatorKind.trim(alloc)).syncUninterruptibly();
            }
        }
    }

    /** Null when used memory is within idle + tolerance, else a description of the excess. */
    static String excess(ByteBufAllocator alloc, long idleBytes, long toleranceBytes) {
        long used = AllocatorKind.usedMemory(alloc);
        if (used <= idleBytes + toleranceBytes) {
            return null;
        }
        return String.format("%s uses %d bytes, idle level was %d (+%d tolerated)", alloc.getClass().getSimpleName(),
                used, idleBytes, toleranceBytes);
    }
}
