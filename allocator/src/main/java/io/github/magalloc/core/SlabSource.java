package io.github.magalloc.core;

import io.github.magalloc.buffer.LiveSlabs;
import io.github.magalloc.buffer.Slab;
import io.netty.util.internal.CleanableDirectBuffer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Slabs from the system and back, for one kind of memory, and their accounting: every slab taken or freed goes
 * through here, so {@link PoolMetrics#reservedBytes()} is exactly the bytes of the slabs alive, and every slab alive
 * is in {@link #live}, from which the slabs of a pool nothing reaches any more are freed ({@link #freeAllTask};
 * protocol 8 (dropped allocators)).
 */
final class SlabSource {
    private final boolean direct;
    private final LiveSlabs live;
    private final PoolMetrics metrics;
    private final PoolEvents events;
    /** Asked for after every direct slab's memory went back to the C allocator. */
    private final NativeTrim trim;
    /** Closes the slabs whose memory goes back by closing their arena, off the freeing thread. */
    private final ArenaCloser arenas;

    SlabSource(PoolContext context, NativeTrim trim) {
        this.direct = context.direct;
        this.live = new LiveSlabs(context.direct);
        this.metrics = context.metrics;
        this.events = context.events;
        this.trim = trim;
        this.arenas = new ArenaCloser(trim, BackgroundThread.ARENA_CLOSES_SCHEDULER, ArenaCloser.MAX_PENDING_BYTES);
    }

    /**
     * A slab of {@code size} bytes from the system, for chunks ({@code pooled}) or for one huge buffer; or null if it
     * does not fit under the direct memory limit (known before asking, so that the JDK never waits for memory on this
     * thread: {@link DirectMemoryLimit}) or the system refused it (its error recorded in {@code shortage}, if any).
     */
    Slab tryTake(int size, boolean pooled, MakingRoom.Shortage shortage) {
        Slab slab;
        try {
            slab = direct ? takeDirect(size) : pooled ? Slab.heapForChunks(size) : Slab.heap(size);
        } catch (OutOfMemoryError refused) {
            if (shortage != null && shortage.refusal == null) {
                shortage.refusal = refused;
            }
            return null;
        }
        if (slab == null) {
            return null;
        }
        live.add(slab);
        metrics.slabAllocated(slab.size);
        events.slabAllocated(slab.size, pooled, slab.address, metrics.reservedBytes());
        return slab;
    }

    /** A direct slab if it fits under the limit, else null; throws when the system refuses it all the same. */
    private static Slab takeDirect(int size) {
        long request = Slab.directRequestBytes(size);
        if (!DirectMemoryLimit.JVM.tryReserve(request)) {
            return null;
        }
        try {
            return Slab.direct(size);
        } finally {
            DirectMemoryLimit.JVM.endReservation(request);
        }
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
     * Making room on a shortage, on the allocating thread: closes the arena of one of this pool's slabs freed but still
     * counted against the direct memory limit; returns its bytes, 0 if none is pending.
     */
    long closeOnePendingArena() {
        return arenas.closeOne();
    }

    /** Bytes this pool freed whose arenas are not closed yet: they still count against the limit. */
    long unclosedArenaBytes() {
        return arenas.unclosedBytes();
    }

    /** Making room: waits, until {@code deadlineNanos} at most, for this pool's arena closes in progress. */
    void awaitArenaCloses(long deadlineNanos) {
        arenas.awaitCloses(deadlineNanos);
    }

    /**
     * The task that frees the pool's direct slabs once nothing reaches the pool any more (a dropped allocator, or an
     * undeployed application's): made of the JDK's classes over Netty's memory handles ({@link JdkOnlyTasks}), it keeps
     * nothing of the pool and nothing of magalloc's class loader. (No trim of the C heap follows: the next pool's does.)
     */
    Runnable freeAllTask() {
        return JdkOnlyTasks.forEach(live.directMemory(), CLEAN);
    }

    /** Netty's {@code CleanableDirectBuffer.clean()}, which frees a direct slab's memory. */
    private static final MethodHandle CLEAN = findClean();

    private static MethodHandle findClean() {
        try {
            return MethodHandles.publicLookup().findVirtual(CleanableDirectBuffer.class, "clean",
                MethodType.methodType(void.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Bytes of the slabs alive, as the list of them counts. */
    long liveBytes() {
        return live.bytes();
    }

    /**
     * Whether a slab of {@code size} bytes could fit if magalloc gave back all of its {@code magallocBytes} of this
     * kind: false when other code's memory alone leaves less room (making room would be in vain). Heap: always true.
     */
    boolean couldEverFit(int size, long magallocBytes) {
        return !direct || DirectMemoryLimit.JVM.couldFit(Slab.directRequestBytes(size), magallocBytes);
    }

    /**
     * The error for a slab of {@code size} bytes that does not fit even after making room in {@code pools} (every pool
     * of the kind): the limit, what is in use, and of magalloc's part what live buffers use and what is free but
     * held (in chunks that hold live buffers, or by threads that did not answer).
     */
    OutOfMemoryError exhausted(int size, MakingRoom.Shortage shortage, List<ChunkSupply> pools) {
        String kind = direct ? "direct" : "heap";
        long magalloc = MakingRoom.reservedBytes(pools);
        long liveBytes = 0;
        for (ChunkSupply pool : pools) {
            liveBytes += pool.liveBufferBytes();
        }
        long used = direct ? DirectMemoryLimit.JVM.used() : Runtime.getRuntime().totalMemory()
            - Runtime.getRuntime().freeMemory();
        String limit = direct
            ? "max direct memory " + limit() + " bytes (-XX:MaxDirectMemorySize or -Dio.netty.maxDirectMemory)"
            : "max heap " + limit() + " bytes (-Xmx)";
        OutOfMemoryError error = new OutOfMemoryError("magalloc: cannot allocate " + size + " bytes of " + kind
            + " memory: " + limit + ", in use " + (used < 0 ? "unknown" : used + " bytes") + "; magalloc's slabs "
            + magalloc + " bytes: live buffers " + liveBytes + ", free but held " + Math.max(0, magalloc - liveBytes)
            + " (in chunks with live buffers, or by " + shortage.unanswered + " threads that did not give back within "
            + TimeUnit.NANOSECONDS.toMillis(MakingRoom.WAIT_NANOS) + " ms); " + shortage.givenBackBytes
            + " bytes given back first");
        if (shortage.refusal != null) {
            error.initCause(shortage.refusal);
        }
        return error;
    }

    /** Bytes of the live buffers in this source's slabs, as their chunks count them now (racy; for errors). */
    long liveBufferBytes() {
        return live.liveBufferBytes();
    }

    /** The JVM's limit for this kind of memory: max direct memory as its counters have it, or max heap. */
    long limit() {
        return direct ? DirectMemoryLimit.JVM.max() : Runtime.getRuntime().maxMemory();
    }
}
