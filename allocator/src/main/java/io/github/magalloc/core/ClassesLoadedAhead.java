package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.jctools.queues.atomic.AtomicQueueUtil;

/**
 * Loads and initializes, when the first pool of the JVM is made and on the thread that makes it, the classes that
 * allocations and releases would otherwise load or initialize at their first use. A virtual thread that loads a
 * class, runs a static initializer, or waits for another thread doing either is pinned to its carrier (the JVM runs
 * both from native code), so without this the first requests of a server on virtual threads would pin carriers.
 * {@code FirstAllocationsOnVirtualThreadsTest} fails if a class an allocation needs is missing here.
 */
final class ClassesLoadedAhead {
    /** The classes that allocations and releases use, besides those every pool makes objects of when it is made. */
    private static final Class<?>[] CLASSES = {
        SizeClassChunk.class, ChunkList.class, MpscIntQueue.class, SegmentSlot.class, LargeChunk.class,
        HugeChunk.class, ThreadMagazine.class, ReleasedObjects.class, ObjectReuse.class, Slab.class, SpinLock.class,
        VirtualThreads.class,
        // Debug mode's (a setting of some allocators only).
        DebugSizeClassChunk.class, DebugMemory.class,
        // The background thread's: a release on JDK 25 can queue an arena's close and start the thread.
        DaemonThreads.class, DaemonThreads.NewThread.class, BackgroundThread.Timed.class,
        // A slab's check against the direct memory limit, and a shortage's (protocol 9 (making room)).
        DirectMemoryLimit.class, MakingRoom.class, MakingRoom.Shortage.class, GiveBackRound.class, OwnerRequests.class,
        // Upkeep's failure policy, and the work after a collection (a virtual thread's release arms a sweep).
        UpkeepFailures.class, UpkeepFailures.Kind.class, AfterCollection.Reported.class, AfterCollection.Waiting.class,
        VirtualThreadObjects.Sweep.class, GivenBackAfterUnlock.class, GivenBackAfterUnlock.Batch.class,
        GiveBack.AtOnce.class,
        // Netty's: a thread's kind is checked at each allocation; a stale release throws.
        FastThreadLocalThread.class, IllegalReferenceCountException.class,
        // JCTools': the reuse pool's queue calls it at its first offer and poll.
        AtomicQueueUtil.class,
    };
    /**
     * Netty's classes that its leak detection uses for a sampled allocation ({@code toLeakAwareBuffer}, which every
     * allocator's buffers pass through), not public: by name, each where this Netty version has it, through
     * netty-buffer's class loader, which sees netty-buffer's classes and the netty-common ones it uses. In some versions
     * (4.2.3, not 4.2.20) {@code toLeakAwareBuffer} switches on the leak detection level, which loads javac's
     * switch-map class, {@code AbstractByteBufAllocator$1}, at the JVM's first buffer.
     */
    private static final String[] LEAK_DETECTION_CLASSES = {
        "io.netty.buffer.SimpleLeakAwareByteBuf", "io.netty.buffer.AdvancedLeakAwareByteBuf",
        "io.netty.util.ResourceLeakDetector$DefaultResourceLeak", "io.netty.util.ResourceLeakDetector$TraceRecord",
        "io.netty.buffer.AbstractByteBufAllocator$1",
    };
    /** The size of the direct slab made and freed to load Netty's classes behind a direct slab. */
    private static final int PROBE_SLAB_SIZE = 1;

    private ClassesLoadedAhead() {
    }

    /** Once per JVM, from {@link MemoryPool}'s static initializer. */
    static void loadAndInitialize() {
        for (Class<?> type : CLASSES) {
            initialize(type);
        }
        for (Class<?> type : MagByteBuf.objectClasses()) {
            initialize(type);
        }
        for (String name : LEAK_DETECTION_CLASSES) {
            initializeIfPresent(name);
        }
        loadDirectSlabClasses();
    }

    private static void initialize(Class<?> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("cannot initialize " + type.getName() + ", which this class refers to", e);
        }
    }

    private static void initializeIfPresent(String name) {
        try {
            Class.forName(name, true, ByteBuf.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            // Another Netty version, without this class: its leak detection loads what it has at its first use.
        }
    }

    /**
     * A direct slab's memory comes from Netty, whose class for it is private: a slab of one byte, freed at once,
     * loads it. Where no direct memory can be had (none left, or direct buffers unavailable) the first direct slab
     * loads it instead, or fails as it would have: a heap-only user must not lose the allocator to this probe.
     */
    private static void loadDirectSlabClasses() {
        try {
            Slab.direct(PROBE_SLAB_SIZE).free();
        } catch (OutOfMemoryError | RuntimeException e) {
            // Loaded later, by the first direct slab: at worst that one may pin a virtual thread.
        }
    }
}
