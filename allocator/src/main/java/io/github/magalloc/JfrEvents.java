package io.github.magalloc;

/**
 * The allocator's hooks into Java Flight Recorder: one call per event, each placed in a cold path (slabs, chunks,
 * the reuse pool, magazines' life cycle, trim), never in the per-buffer allocation or release. See
 * {@code docs/observability.md} for the events and how to record them.
 *
 * <p>Why a class in between: the event classes extend {@code jdk.jfr.Event}, and a runtime image built without
 * the {@code jdk.jfr} module (jlink) cannot load them. Here every hook first reads a constant, so in such a runtime
 * no event class is ever loaded and the allocator works as usual. Where the module is present, an event a recording
 * does not enable costs one {@code shouldCommit()} that returns false.
 */
final class JfrEvents {
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private JfrEvents() {
    }

    /** Whether the runtime has the {@code jdk.jfr} module, so the events can be recorded. */
    static boolean available() {
        return AVAILABLE;
    }

    static void slabAllocated(MemoryPool pool, Slab slab, boolean pooled) {
        if (AVAILABLE) {
            SlabAllocatedEvent.emit(pool, slab, pooled);
        }
    }

    static void slabFreed(MemoryPool pool, Slab slab, boolean pooled) {
        if (AVAILABLE) {
            SlabFreedEvent.emit(pool, slab, pooled);
        }
    }

    static void memoryExhausted(MemoryPool pool, int requested, long freedBytes, boolean recovered,
                                OutOfMemoryError first) {
        if (AVAILABLE) {
            MemoryExhaustedEvent.emit(pool, requested, freedBytes, recovered, first);
        }
    }

    static void chunkActivated(MemoryPool pool, SizeClassChunk chunk, Magazine magazine, boolean reused) {
        if (AVAILABLE) {
            ChunkActivatedEvent.emit(pool, chunk, magazine, reused);
        }
    }

    static void chunkRetired(MemoryPool pool, SizeClassChunk chunk, boolean pooled) {
        if (AVAILABLE) {
            ChunkRetiredEvent.emit(pool, chunk, pooled);
        }
    }

    /**
     * {@code sizeClass} -1 for a large chunk; {@code slab} null on a miss, else the slab taken, with
     * {@code wholeChunk} when it came as an empty chunk of the class.
     */
    static void reusePoolTake(MemoryPool pool, int sizeClass, Slab slab, boolean wholeChunk) {
        if (AVAILABLE) {
            ReusePoolTakeEvent.emit(pool, sizeClass, slab, wholeChunk);
        }
    }

    static void trimmed(MemoryPool pool, long freedBytes, int reapedMagazines, int threadMagazines) {
        if (AVAILABLE) {
            TrimEvent.emit(pool, freedBytes, reapedMagazines, threadMagazines);
        }
    }

    static void magazineCreated(MemoryPool pool) {
        if (AVAILABLE) {
            MagazineCreatedEvent.emit(pool);
        }
    }

    static void magazineEnded(Magazine magazine, long heldBytes) {
        if (AVAILABLE) {
            MagazineEndedEvent.emit(magazine, heldBytes);
        }
    }
}
