package io.github.magalloc.buffer;

/**
 * The direct slabs of one pool that are taken from the system and not yet freed, so that a pool that becomes
 * unreachable still gives its memory back: Netty frees most direct memory only when asked, not when the collector
 * collects the buffer, so the slabs of a dropped allocator would stay with the process for good. A cleaner watching
 * the pool calls {@link #freeAll} once nothing reaches it any more: no buffer, live or stale, can then touch a slab.
 *
 * <p>An intrusive doubly linked list through the slabs, under this object's lock: adding and removing a slab make no
 * garbage (a slab is taken or freed on a cold path, but large chunks come and go often enough that an entry object per
 * slab would show in the garbage per operation). Invariant: a slab is in the list from {@link #add} until the one call
 * that removes it, {@link #remove} or {@link #freeAll}, which alone frees it: so no slab is freed twice even if both
 * run at once.
 */
public final class LiveSlabs {
    private Slab first;
    private long bytes;

    /** A slab just taken from the system. */
    public synchronized void add(Slab slab) {
        slab.previousLive = null;
        slab.nextLive = first;
        if (first != null) {
            first.previousLive = slab;
        }
        first = slab;
        bytes += slab.size;
    }

    /**
     * Takes {@code slab} out before its memory is freed; returns false if it is not in the list (only {@link #freeAll}
     * took it out, and freed it).
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
        return true;
    }

    /**
     * Frees every slab still in the list; returns their bytes. For the cleaner of a pool nothing reaches any more. All
     * under the lock, so that a {@link #remove} racing with it finds its slab either still linked or gone.
     */
    public synchronized long freeAll() {
        long freed = bytes;
        Slab slab = first;
        first = null;
        bytes = 0;
        while (slab != null) {
            Slab next = slab.nextLive;
            slab.previousLive = null;
            slab.nextLive = null;
            slab.free();
            slab = next;
        }
        return freed;
    }

    /** Bytes of the live buffers in the listed slabs, as their chunks count them (racy; for an error's report). */
    public synchronized long liveBufferBytes() {
        long bytes = 0;
        for (Slab slab = first; slab != null; slab = slab.nextLive) {
            bytes += slab.liveBufferBytes();
        }
        return bytes;
    }

    /** Bytes of the slabs in the list. */
    public synchronized long bytes() {
        return bytes;
    }
}
