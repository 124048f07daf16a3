package io.github.magalloc.buffer;

import io.netty.util.internal.CleanableDirectBuffer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The slabs of one pool that are taken from the system and not yet freed: for the pool's accounting and reports, and,
 * for direct memory, so that a pool that becomes unreachable still gives its memory back. Netty frees most direct
 * memory only when asked, not when the collector collects the buffer, so the slabs of a dropped allocator would stay
 * with the process for good: a cleaner watching the pool frees the handles in {@link #directMemory} once nothing
 * reaches the pool any more (no buffer, live or stale, can then touch a slab).
 *
 * <p>An intrusive doubly linked list through the slabs, under this object's lock: adding and removing a slab make no
 * garbage. Beside it, for direct slabs, the set of their memory handles (Netty's), which the cleaner's task frees: a
 * task of the JDK's classes over objects of the JDK's and Netty's ({@code JdkOnlyTasks}), so that a pool's registration
 * keeps nothing of magalloc's class loader (an undeployed application's). Invariant: a slab is in both from
 * {@link #add} until {@link #remove} takes it out, whose caller alone frees it; the cleaner's task runs only once no
 * slab of the pool is reachable, so never beside a {@link #remove}.
 */
public final class LiveSlabs {
    private Slab first;
    private long bytes;
    /** Direct slabs' memory handles; null for heap slabs, which the collector takes. */
    private final Set<CleanableDirectBuffer> directMemory;

    /**
     * The live slabs of a pool of direct memory if {@code direct}, else of heap.
     *
     * @param direct true for a direct memory pool, whose slabs' memory handles are kept too
     */
    public LiveSlabs(boolean direct) {
        this.directMemory = direct ? ConcurrentHashMap.newKeySet() : null;
    }

    /**
     * Lists a slab just taken from the system.
     *
     * @param slab the slab, in no list
     */
    public synchronized void add(Slab slab) {
        slab.previousLive = null;
        slab.nextLive = first;
        if (first != null) {
            first.previousLive = slab;
        }
        first = slab;
        bytes += slab.size;
        if (directMemory != null) {
            directMemory.add(slab.cleanable());
        }
    }

    /**
     * Takes {@code slab} out before its memory is freed; returns false if it is not in the list (it was taken out
     * before: the caller that takes a slab out is the one that frees it, once).
     *
     * @param slab a slab of this pool
     * @return true if it was listed and is now taken out, false if it was not listed
     */
    public synchronized boolean remove(Slab slab) {
        if (slab.previousLive == null && first != slab) {
            return false;
        }
        if (slab.previousLive != null) {
            slab.previousLive.nextLive = slab.nextLive;
        } else {
            first = slab.nextLive;
        }
        if (slab.nextLive != null) {
            slab.nextLive.previousLive = slab.previousLive;
        }
        slab.previousLive = null;
        slab.nextLive = null;
        bytes -= slab.size;
        if (directMemory != null) {
            directMemory.remove(slab.cleanable());
        }
        return true;
    }

    /**
     * Direct slabs' memory handles, Netty's objects in a JDK set: what the cleaner of a pool nothing reaches any more
     * frees, with a task of the JDK's classes ({@code JdkOnlyTasks}), so that the registration keeps nothing of
     * magalloc's class loader. Null for heap slabs.
     *
     * @return the live view of the handles (a concurrent set), or null for a heap pool
     */
    public Iterable<CleanableDirectBuffer> directMemory() {
        return directMemory;
    }

    /**
     * Bytes of the live buffers in the listed slabs, as their chunks count them (racy; for an error's report).
     *
     * @return the bytes, 0 or more
     */
    public synchronized long liveBufferBytes() {
        long bytes = 0;
        for (Slab slab = first; slab != null; slab = slab.nextLive) {
            bytes += slab.liveBufferBytes();
        }
        return bytes;
    }

    /**
     * Bytes of the slabs in the list.
     *
     * @return the sum of their sizes, 0 or more
     */
    public synchronized long bytes() {
        return bytes;
    }
}
