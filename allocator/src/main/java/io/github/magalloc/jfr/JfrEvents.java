package io.github.magalloc.jfr;

import io.github.magalloc.core.MemoryPool;
import io.github.magalloc.core.PoolEvents;

/**
 * The allocator's flight-recorder events: {@link #forPool} gives a pool the observer that records them. See
 * {@code docs/observability.md} for the events and how to record them.
 *
 * <p>Why a factory in between: the event classes extend {@code jdk.jfr.Event}, and a runtime image built without
 * the {@code jdk.jfr} module (jlink) cannot load them. There a pool gets {@link PoolEvents#NONE}, no event class is
 * ever loaded, and the allocator works as usual. Where the module is present, an event a recording does not enable
 * costs one {@code shouldCommit()} that returns false.
 */
public final class JfrEvents {
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private JfrEvents() {
    }

    /**
     * Whether the runtime has the {@code jdk.jfr} module, so the events can be recorded.
     *
     * @return true if the module is in the boot layer
     */
    public static boolean available() {
        return AVAILABLE;
    }

    /**
     * The observer of one pool: of the allocator whose identity hash is {@code allocatorId} (the id Micrometer's
     * allocator metrics use too), for {@code direct} or heap memory.
     *
     * @param allocatorId {@link System#identityHashCode} of the allocator, the events' {@code allocatorId} field
     * @param direct true for the direct memory pool, false for the heap one
     * @return a new observer that records the events, or {@link PoolEvents#NONE} where {@code jdk.jfr} is missing
     */
    public static PoolEvents forPool(int allocatorId, boolean direct) {
        return AVAILABLE ? new JfrPoolEvents(allocatorId, direct) : PoolEvents.NONE;
    }

    /**
     * Reports {@code pool}'s requests per size class in the periodic {@code magalloc.SizeClassRequests} event; does
     * nothing where {@code jdk.jfr} is missing.
     *
     * @param pool the pool to report on, watched weakly while it is reachable
     */
    public static void watchRequests(MemoryPool pool) {
        if (AVAILABLE) {
            JfrPoolEvents.watchRequests(pool);
        }
    }
}
