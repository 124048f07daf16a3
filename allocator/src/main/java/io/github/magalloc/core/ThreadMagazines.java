package io.github.magalloc.core;

import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;

import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which threads have a magazine of their own, and the end of each: the lookup itself and the set of live thread
 * magazines. A thread gets one at its first allocation if it is a {@link FastThreadLocalThread} that cleans up its
 * thread locals (Netty's event loops), if it opted in ({@link #attachCurrentThread}), or if every platform thread gets
 * one; other threads, virtual threads always, use the {@link Stripes}.
 *
 * <p>An allocation looks first in the {@link ThreadMagazineTable}, by the thread's id; a thread whose entry holds none
 * of its magazine looks in its own slot, a {@code FastThreadLocal} (an array index on a {@code FastThreadLocalThread}),
 * and takes the entry if it is free. The table is this object's superclass, not a field of it, for one dependent load
 * less on every allocation: the entries array is two loads from the pool (this object, its array), no more than the
 * id takes from the running thread (its {@code Thread}, then the id), so the two chains run side by side; a field
 * would make the pool's chain the longer by its own load.
 *
 * <p>A magazine ends exactly once ({@link #end}): when its thread exits ({@link MagazineSlot#onRemoval}, which Netty
 * runs on the exiting thread), detaches, or is found dead by {@link #reapDeadThreadMagazines} (a new thread magazine
 * and {@code trim()} look). The live set decides who ends it: only the caller that removes it from the set.
 *
 * <p><b>No thread keeps a pool.</b> A thread's slot lives as long as the thread (Netty never frees a thread-local's
 * index) and holds only its magazine's {@link ThreadMagazine#threadLink}, a weak reference; the thread-local object
 * every thread keeps in its removal set is static and field-free. The pool holds its magazines strongly (the live set,
 * the table). So an allocator nobody references any more is collected with everything it holds while the threads that
 * used it run on, idle or not: each thread keeps a cleared weak reference and an index slot of it (a few dozen bytes):
 * protocol 8 (dropped allocators).
 */
final class ThreadMagazines extends ThreadMagazineTable implements ThreadMagazine.Registry {
    private final ChunkSupply supply;
    private final boolean forAllThreads;
    /** Each thread's link to its magazine: its {@link ThreadMagazine#threadLink}. */
    private final MagazineSlot slot = new MagazineSlot();
    /** Thread magazines alive, strongly: lets trim() reach them and dead threads' magazines be ended. */
    private final Set<ThreadMagazine> live = ConcurrentHashMap.newKeySet();
    /**
     * True once any thread that is not a {@code FastThreadLocalThread} may have a magazine of its own. Read on every
     * plain-thread allocation, written once.
     */
    private volatile boolean plainThreadMagazines;

    ThreadMagazines(ChunkSupply supply, boolean forAllThreads) {
        this(supply, forAllThreads, ThreadMagazineTable.DEFAULT_SIZE);
    }

    /** As above, with a table of {@code tableSize} entries (tests share entries between threads). */
    ThreadMagazines(ChunkSupply supply, boolean forAllThreads, int tableSize) {
        super(tableSize);
        this.supply = supply;
        this.forAllThreads = forAllThreads;
        this.plainThreadMagazines = forAllThreads;
    }

    /** The calling thread's own magazine, or null if it uses the stripes. */
    ThreadMagazine current() {
        Thread thread = Thread.currentThread();
        long threadId = thread.getId();
        ThreadMagazine magazine = lookup(threadId);
        return magazine != null ? magazine : currentFromSlot(thread);
    }

    /**
     * The calling thread's magazine found through its slot, as its table entry holds none of it (its first allocation,
     * an entry another thread holds, a thread without a magazine), put in the table if its entry is free; else a new
     * magazine if the thread gets one, else null.
     */
    private ThreadMagazine currentFromSlot(Thread thread) {
        // A plain thread's thread-local lookup is a ThreadLocal search: skip it unless some plain thread may have a
        // magazine. A stale read is harmless: a thread that attached itself set the flag before its own lookup.
        if (!(thread instanceof FastThreadLocalThread) && (!lvPlainThreadMagazines() || isVirtual(thread))) {
            return null;
        }
        ThreadMagazine magazine = linkedMagazine(slot.getIfExists());
        if (magazine == null) {
            return newMagazineIfEligible();
        }
        offer(magazine);
        return magazine;
    }

    /**
     * Virtual threads never have a magazine of their own, even with {@code threadLocalMagazinesForAllThreads}: each
     * would take chunks for a request or two and then end, and even the lookup would give each a thread-local map
     * to throw away. They use the stripes. Cold: reached only when plain threads may have magazines.
     */
    private static boolean isVirtual(Thread thread) {
        return VirtualThreads.isVirtual(thread);
    }

    /** Cold: the first allocation of an event-loop (or opted-in) thread creates its magazine. */
    private ThreadMagazine newMagazineIfEligible() {
        if (forAllThreads || FastThreadLocalThread.currentThreadWillCleanupFastThreadLocals()) {
            return newMagazine();
        }
        return null;
    }

    /** Cold: a magazine for the calling thread, in the live set, linked from the thread. */
    private ThreadMagazine newMagazine() {
        // A new thread is a good moment to look for dead ones: no lock is held here, and thread churn is exactly
        // what leaves dead threads' magazines behind.
        reapDeadThreadMagazines();
        ThreadMagazine magazine = new ThreadMagazine(supply, Thread.currentThread());
        magazine.registry = this;
        live.add(magazine);
        slot.set(magazine.threadLink);
        offer(magazine);
        supply.context.events.magazineCreated(live.size());
        return magazine;
    }

    /**
     * Gives the calling thread its own magazine (opt-in for threads that are not event loops); refused on a virtual
     * thread, which would never be given it ({@link #current}).
     */
    void attachCurrentThread() {
        if (isVirtual(Thread.currentThread())) {
            throw new IllegalStateException("attachCurrentThread() on a virtual thread: virtual threads cannot have a "
                + "magazine of their own (there are too many and they live too briefly); they share the stripes");
        }
        svPlainThreadMagazines(true);
        if (linkedMagazine(slot.getIfExists()) == null) {
            newMagazine();
        }
    }

    /** The magazine a slot's link refers to, or null (no link, or the pool was collected). */
    private static ThreadMagazine linkedMagazine(WeakReference<ThreadMagazine> link) {
        return link == null ? null : link.get();
    }

    /** The calling thread's link to its magazine as its slot holds it now, or null; tests read it. */
    WeakReference<ThreadMagazine> currentLink() {
        return slot.getIfExists();
    }

    /** Ends the calling thread's magazine, if any. */
    void detachCurrentThread() {
        slot.remove();
    }

    @Override
    public boolean end(ThreadMagazine magazine) {
        if (live.remove(magazine)) {
            magazine.end();
            remove(magazine);
            // The owner allocates no more (it ended the magazine itself, or it is dead), so its counts are final.
            supply.context.metrics.addEndedRequests(magazine.requests);
            return true;
        }
        return false;
    }

    /**
     * Ends the magazines of threads that died without cleaning up their thread locals. A terminated thread's
     * writes happen-before {@code isAlive()} returning false; a thread already collected is dead too. Returns how
     * many this call ended.
     */
    int reapDeadThreadMagazines() {
        int ended = 0;
        for (ThreadMagazine magazine : live) {
            Thread owner = magazine.ownerThread.get();
            if ((owner == null || !owner.isAlive()) && end(magazine)) {
                ended++;
            }
        }
        return ended;
    }

    /**
     * Making room on a shortage: the calling thread's own magazine, if it has one, gives back what it holds free and
     * answers the round that asked it. Never makes a magazine.
     */
    void giveBackHeldByCaller() {
        ThreadMagazine magazine = linkedMagazine(slot.getIfExists());
        if (magazine != null && magazine.isOwnedByCurrentThread()) {
            magazine.giveBackOnShortage();
        }
    }

    /** Making room on a shortage: every live thread magazine's unused large chunks, detached by the caller. */
    void reclaimUnusedLargeChunks() {
        for (ThreadMagazine magazine : live) {
            magazine.reclaimUnusedLargeChunks();
        }
    }

    /**
     * Making room on a shortage: ends the magazines of dead threads (they would never answer), then asks every other
     * live magazine to give back and answer {@code round}. The caller's own gave back already.
     */
    void askToGiveBack(GiveBackRound round) {
        reapDeadThreadMagazines();
        for (ThreadMagazine magazine : live) {
            if (!magazine.isOwnedByCurrentThread()) {
                magazine.askToGiveBack(round);
            }
        }
    }

    /**
     * Asks every live thread magazine to give back its empty chunks at its next refill, the calling thread's own at
     * once; returns how many.
     */
    int requestTrim() {
        int asked = 0;
        for (ThreadMagazine magazine : live) {
            magazine.requestTrim();
            asked++;
        }
        return asked;
    }

    int count() {
        return live.size();
    }

    /** Adds every live thread magazine's request counts to {@code totals} (racy reads: a snapshot). */
    void sumRequests(long[] totals) {
        for (ThreadMagazine magazine : live) {
            magazine.requests.addTo(totals);
        }
    }

    private boolean lvPlainThreadMagazines() {
        return plainThreadMagazines;
    }

    private void svPlainThreadMagazines(boolean value) {
        plainThreadMagazines = value;
    }

    /**
     * A thread's link to its magazine. Static and field-free: every thread that sets it keeps it in its removal set
     * for its whole life, so it must reach nothing of the pool. Its removal (the thread exits, or detaches) ends the
     * magazine if it is still there.
     */
    private static final class MagazineSlot extends FastThreadLocal<WeakReference<ThreadMagazine>> {
        @Override
        protected void onRemoval(WeakReference<ThreadMagazine> link) {
            ThreadMagazine magazine = linkedMagazine(link);
            if (magazine != null && magazine.registry != null) {
                magazine.registry.end(magazine);
            }
        }
    }
}
