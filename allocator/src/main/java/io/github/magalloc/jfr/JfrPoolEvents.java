package io.github.magalloc.jfr;

import io.github.magalloc.core.MemoryPool;
import io.github.magalloc.core.PoolEvents;
import io.github.magalloc.core.VirtualThreads;

import java.lang.invoke.MethodHandles;
import java.util.List;

/** Records a pool's events as flight-recorder events; loaded only where the {@code jdk.jfr} module is. */
final class JfrPoolEvents implements PoolEvents {
    /**
     * Every event class, loaded and initialized with this class, that is when an allocator is made. Done lazily, the
     * first event of a kind would load and initialize its class on the thread that fires it, and a virtual thread
     * that waits inside class loading or a static initializer (for another thread loading the same class, or for
     * JFR, which registers an event class in its static initializer under a lock) is pinned to its carrier.
     */
    static final List<Class<? extends MagallocEvent>> EVENT_CLASSES = initialized(List.of(SlabAllocatedEvent.class,
        SlabFreedEvent.class, MemoryExhaustedEvent.class, ChunkActivatedEvent.class, ChunkRetiredEvent.class,
        ReusePoolTakeEvent.class, MagazineCreatedEvent.class, MagazineEndedEvent.class, TrimEvent.class,
        SizeClassRequestsEvent.class));

    private static <T extends Class<?>> List<T> initialized(List<T> classes) {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        for (Class<?> eventClass : classes) {
            try {
                lookup.ensureInitialized(eventClass);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot initialize " + eventClass.getName(), e);
            }
        }
        return classes;
    }

    private final int allocatorId;
    private final boolean direct;

    /** See {@link JfrEvents#watchRequests}; here, where the event classes may be named. */
    static void watchRequests(MemoryPool pool) {
        SizeClassRequestsEvent.watch(pool);
    }

    JfrPoolEvents(int allocatorId, boolean direct) {
        this.allocatorId = allocatorId;
        this.direct = direct;
    }

    @Override
    public void slabAllocated(int size, boolean pooled, long address, long reservedBytes) {
        SlabAllocatedEvent event = new SlabAllocatedEvent();
        if (event.shouldCommit()) {
            event.commit(allocatorId, direct, size, pooled, address, reservedBytes);
        }
    }

    @Override
    public void slabFreed(int size, boolean pooled, long address, long reservedBytes) {
        SlabFreedEvent event = new SlabFreedEvent();
        if (event.shouldCommit()) {
            event.commit(allocatorId, direct, size, pooled, address, reservedBytes);
        }
    }

    @Override
    public void memoryExhausted(int requested, long freedBytes, boolean recovered, long reservedBytes, long limit,
                                long makingRoomNanos, int unansweredThreads, String firstError) {
        MemoryExhaustedEvent event = new MemoryExhaustedEvent();
        if (event.shouldCommit()) {
            event.setPool(allocatorId, direct);
            event.requested = requested;
            event.freedBytes = freedBytes;
            event.recovered = recovered;
            event.makingRoom = makingRoomNanos;
            event.unanswered = unansweredThreads;
            event.used = reservedBytes;
            event.limit = limit;
            event.firstError = unlessOnVirtualThread(firstError);
            event.commit();
        }
    }

    @Override
    public void chunkActivated(int sizeClass, int chunkSize, long activeChunks, boolean threadMagazine,
                               boolean reused) {
        ChunkActivatedEvent event = new ChunkActivatedEvent();
        if (event.shouldCommit()) {
            event.setChunk(allocatorId, direct, sizeClass, chunkSize, activeChunks);
            event.threadLocal = threadMagazine;
            event.reused = reused;
            event.commit();
        }
    }

    @Override
    public void chunkRetired(int sizeClass, int chunkSize, long activeChunks, boolean pooled) {
        ChunkRetiredEvent event = new ChunkRetiredEvent();
        if (event.shouldCommit()) {
            event.setChunk(allocatorId, direct, sizeClass, chunkSize, activeChunks);
            event.pooled = pooled;
            event.commit();
        }
    }

    @Override
    public void reusePoolTake(int sizeClass, int slabSize, boolean wholeChunk, long pooledFreeBytes) {
        ReusePoolTakeEvent event = new ReusePoolTakeEvent();
        if (event.shouldCommit()) {
            event.setPool(allocatorId, direct);
            event.sizeClass = sizeClass;
            event.segmentSize = sizeClass < 0 ? 0 : ChunkEvent.segmentSizeOf(sizeClass);
            event.result = slabSize == 0 ? "miss" : wholeChunk ? "chunk" : "slab";
            event.slabSize = slabSize;
            event.pooledFree = pooledFreeBytes;
            event.commit();
        }
    }

    @Override
    public void trimmed(long freedBytes, int reapedMagazines, int threadMagazines, long reservedBytes) {
        TrimEvent event = new TrimEvent();
        if (event.shouldCommit()) {
            event.setPool(allocatorId, direct);
            event.freedBytes = freedBytes;
            event.reapedMagazines = reapedMagazines;
            event.threadMagazines = threadMagazines;
            event.used = reservedBytes;
            event.commit();
        }
    }

    @Override
    public void magazineCreated(int threadMagazines) {
        MagazineCreatedEvent event = new MagazineCreatedEvent();
        if (event.shouldCommit()) {
            event.setPool(allocatorId, direct);
            event.threadMagazines = threadMagazines;
            event.commit();
        }
    }

    @Override
    public void magazineEnded(long ownerThreadId, String ownerThreadName, boolean reaped, long heldBytes,
                              long stillHeldBytes, int stillHeldChunks, long endedThreadsBytes) {
        MagazineEndedEvent event = new MagazineEndedEvent();
        if (event.shouldCommit()) {
            event.setPool(allocatorId, direct);
            event.ownerThreadId = ownerThreadId;
            event.ownerThreadName = unlessOnVirtualThread(ownerThreadName);
            event.reaped = reaped;
            event.heldBytes = heldBytes;
            event.stillHeldBytes = stillHeldBytes;
            event.stillHeldChunks = stillHeldChunks;
            event.endedThreadsMemory = endedThreadsBytes;
            event.commit();
        }
    }

    /**
     * {@code text}, or null on a virtual thread: JFR pins a virtual thread to its carrier while it puts a string of
     * over 16 characters into its string pool, under a monitor other threads may hold. The events' other fields
     * carry the facts that matter.
     */
    private static String unlessOnVirtualThread(String text) {
        return VirtualThreads.isVirtual(Thread.currentThread()) ? null : text;
    }
}
