package io.github.magalloc.core;

import io.github.magalloc.buffer.LiveSlabs;
import io.github.magalloc.buffer.Slab;
import io.netty.util.internal.PlatformDependent;

/**
 * Slabs from the system and back, for one kind of memory, and their accounting: every slab taken or freed goes
 * through here, so {@link PoolMetrics#reservedBytes()} is exactly the bytes of the slabs alive, and every slab alive
 * is in {@link #live}, from which the slabs of a pool nothing reaches any more are freed ({@link #freeAllTask};
 * protocol 8 (dropped allocators)).
 */
final class SlabSource {
    private final boolean direct;
    private final LiveSlabs live = new LiveSlabs();
    private final PoolMetrics metrics;
    private final PoolEvents events;
    /** Asked for after every direct slab's memory went back to the C allocator. */
    private final NativeTrim trim;
    /** Closes the slabs whose memory goes back by closing their arena, off the freeing thread. */
    private final ArenaCloser arenas;

    SlabSource(PoolContext context, NativeTrim trim) {
        this.direct = context.direct;
        this.metrics = context.metrics;
        this.events = context.events;
        this.trim = trim;
        this.arenas = new ArenaCloser(trim, BackgroundThread.ARENA_CLOSES_SCHEDULER, ArenaCloser.MAX_PENDING_BYTES);
    }

    /**
     * A slab of {@code size} bytes from the system, for chunks ({@code pooled}) or for one huge buffer. Throws
     * {@link OutOfMemoryError} (from the JDK, or Netty's direct memory counter) when memory is exhausted.
     */
    Slab take(int size, boolean pooled) {
        Slab slab = direct ? Slab.direct(size) : Slab.heap(size);
        live.add(slab);
        metrics.slabAllocated(slab.size);
        events.slabAllocated(slab.size, pooled, slab.address, metrics.reservedBytes());
        return slab;
    }

    /**
     * Gives {@code slab} back to the system; exactly once, when no buffer can reach it any more. Only the caller that
     * takes it out of {@link #live} frees it; while the pool is reachable that is always this one.
     */
    void free(Slab slab, boolean pooled) {
        if (!live.remove(slab)) {
            return;
        }
        metrics.slabFreed(slab.size);
        events.slabFreed(slab.size, pooled, slab.address, metrics.reservedBytes());
        if (direct) {
            giveBackDirect(slab);
        }
    }

    /**
     * The direct slab's memory goes back as Netty frees it here ({@link DirectMemoryRelease}), and a trim of the C heap
     * is asked for once it is back in the C allocator (protocol 3b (resident memory)): at once; after its arena's
     * close on the background thread; or after the collection that finds its buffer, whose cleaner frees it. (The
     * collector takes a heap slab.)
     */
    private void giveBackDirect(Slab slab) {
        // Ifs, not a switch: a switch on an enum loads a class of the compiler's at its first run, here a release on
        // any thread, and a virtual thread loading a class waits pinned to its carrier for another loading the same.
        DirectMemoryRelease here = DirectMemoryRelease.HERE;
        if (here == DirectMemoryRelease.AT_ONCE) {
            slab.free();
            trim.afterFree(slab.size);
        } else if (here == DirectMemoryRelease.BY_CLOSING_ITS_ARENA) {
            arenas.close(slab);
        } else {
            slab.free();
            if (trim != NativeTrim.NONE) {
                long bytes = slab.size;
                NativeTrim afterCollection = trim; // the task must not reference the slab
                AfterCollection.register(slab.memoryOwner(), () -> afterCollection.afterFree(bytes));
            }
        }
    }

    /**
     * On exhausted direct memory, on the allocating thread: closes the arenas of this pool's slabs freed but still
     * counted against the direct memory limit.
     */
    void closePendingArenas() {
        arenas.closePending();
    }

    /**
     * The task that frees the pool's slabs once nothing reaches the pool any more (a dropped allocator), then asks
     * for a trim of the C heap. It references none of the pool's parts but the list of slabs and the trim, so it does
     * not keep the pool alive.
     */
    Runnable freeAllTask() {
        LiveSlabs slabs = live;
        NativeTrim afterFree = DirectMemoryRelease.HERE == DirectMemoryRelease.BY_THE_COLLECTOR ? NativeTrim.NONE
            : trim;
        return () -> {
            long bytes = slabs.freeAll();
            if (bytes > 0) {
                afterFree.afterFree(bytes);
            }
        };
    }

    /** Bytes of the slabs alive, as the list of them counts. */
    long liveBytes() {
        return live.bytes();
    }

    /** The error for a slab of {@code size} bytes that could not be taken even after freeing what the pool held. */
    OutOfMemoryError exhausted(int size, OutOfMemoryError cause) {
        String limit = direct
            ? "max direct memory " + limit() + " bytes (-XX:MaxDirectMemorySize or -Dio.netty.maxDirectMemory)"
            : "max heap " + limit() + " bytes (-Xmx)";
        OutOfMemoryError error = new OutOfMemoryError("magalloc: cannot allocate " + size + " bytes of "
            + (direct ? "direct" : "heap") + " memory; " + limit + "; magalloc holds " + metrics.reservedBytes()
            + " bytes (" + cause.getMessage() + ")");
        error.initCause(cause);
        return error;
    }

    /** The JVM's limit for this kind of memory: max direct memory as Netty sees it, or max heap. */
    long limit() {
        return direct ? PlatformDependent.maxDirectMemory() : Runtime.getRuntime().maxMemory();
    }
}
