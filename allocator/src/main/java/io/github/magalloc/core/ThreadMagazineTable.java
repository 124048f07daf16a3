package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A pool's thread magazines found by their owner thread's id: an allocation's first look ({@link ThreadMagazines}).
 * The thread's own slot, a {@code FastThreadLocal}, is reached through the thread's map and its array and holds a weak
 * reference (protocol 8 (dropped allocators)); this table is reached from the pool the caller holds and indexed by the
 * id, so the magazine comes one dependent load sooner, the same way on every kind of thread. It holds only what the
 * pool's set of live thread magazines holds already, so no thread keeps anything alive through it.
 *
 * <p>An entry is a hint, checked before it is used:
 * <pre>
 *   entries[id &amp; mask] == m  ∧  m.threadId == id  =>  m is the calling thread's magazine, and not ended
 * </pre>
 * since thread ids are never reused, only the owner writes its magazine in (a live one, found through its slot), and an
 * ended magazine leaves its entry before its owner could look again: the owner that ends its own magazine (it exits or
 * detaches) removes it first, and a magazine ended by another thread has a dead owner. {@code threadId} is final, so a
 * racy read of an entry sees it as the constructor wrote it. An entry another live thread holds stays its: the second
 * thread of the same index finds its magazine through its slot (as the first did before it had the entry), so two
 * threads never take the line from each other on every allocation.
 */
class ThreadMagazineTable {
    /** Entries: a thread of any of this many consecutive ids has one to itself. */
    static final int DEFAULT_SIZE = 256;
    private static final VarHandle ENTRIES = MethodHandles.arrayElementVarHandle(ThreadMagazine[].class);

    private final ThreadMagazine[] entries;
    private final int mask;

    /** A table of {@code size} entries, a power of two; tests make small ones so that threads share entries. */
    ThreadMagazineTable(int size) {
        if (Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException("table size must be a power of two: " + size);
        }
        this.entries = new ThreadMagazine[size];
        this.mask = size - 1;
    }

    /**
     * Hot, any thread: the magazine of the thread whose id is {@code threadId}, the caller's own, or null if its entry
     * holds none of it. A plain read: a write of another thread's that arrives late only sends a thread to its slot,
     * and the caller's own writes are in its program order.
     */
    ThreadMagazine lookup(long threadId) {
        ThreadMagazine magazine = entries[index(threadId)];
        return magazine != null && magazine.threadId == threadId ? magazine : null;
    }

    /**
     * Owner, after finding {@code magazine} through its slot: takes its entry if it is empty or holds an ended
     * magazine, so the next allocation finds it here. An entry of another live magazine is left alone.
     */
    void offer(ThreadMagazine magazine) {
        int index = index(magazine.threadId);
        ThreadMagazine occupant = entries[index];
        if (occupant == null || occupant.lvOwnerThreadId() == MagazineOwnerId.NO_OWNER_THREAD) {
            soEntry(index, magazine);
        }
    }

    /**
     * Whoever ended {@code magazine}: its entry no longer holds it, before its owner, if alive, allocates again (and
     * the pool drops it). A compare-and-set, as the entry may hold another thread's magazine.
     */
    void remove(ThreadMagazine magazine) {
        ENTRIES.compareAndSet(entries, index(magazine.threadId), magazine, null);
    }

    /** Whether any entry holds {@code magazine}; tests read it. */
    boolean holds(ThreadMagazine magazine) {
        for (int i = 0; i < entries.length; i++) {
            if (ENTRIES.getVolatile(entries, i) == magazine) {
                return true;
            }
        }
        return false;
    }

    private int index(long threadId) {
        return (int) threadId & mask;
    }

    /** Release: a reader that sees the entry sees the magazine as its owner made it. */
    private void soEntry(int index, ThreadMagazine magazine) {
        ENTRIES.setRelease(entries, index, magazine);
    }
}
