package io.github.magalloc.core;

import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;

import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which threads have a magazine of their own, and the end of each: the thread-local lookup itself (an array index on
 * a {@link FastThreadLocalThread}) and the set of live thread magazines. A thread gets one at its first allocation
 * if it is a {@code FastThreadLocalThread} that cleans up its thread locals (Netty's event loops), if it opted in
 * ({@link #attachCurrentThread}), or if every platform thread gets one; other threads, virtual threads always, use
 * the {@link Stripes}.
 *
 * <p>A magazine ends exactly once ({@link #end}): when its thread exits ({@link MagazineSlot#onRemoval}, which Netty
 * runs on the exiting thread), detaches, or is found dead by {@link #reapDeadThreadMagazines} (a new thread magazine
 * and {@code trim()} look). The live set decides who ends it: only the caller that removes it from the set.
 *
 * <p><b>No thread keeps a pool.</b> A thread's entry lives as long as the thread (Netty never frees a thread-local's
 * index), and the thread-local object every thread keeps in its removal set is static and field-free. The entry holds
 * one of three links ({@link #linkFor}):
 * <pre>
 *   the magazine itself        while its event loop's decay ticks are scheduled: an idle tick can weaken it
 *   its weakLink               while no tick is scheduled yet (no chunk taken, as on a loop that only allocates huge
 *                              buffers) or a tick weakened it: the next allocation looks whether to strengthen it
 *   its lastingWeakLink        once no tick can ever run while the thread is idle (no event loop, ticks refused or
 *                              on the owner's slow paths, as on a benchmark harness's threads): weak for good
 * </pre>
 * A tick that finds the magazine idle for a whole period, or holding nothing, makes a strong link weak, and the next
 * allocation makes it strong again ({@link #current}'s slow path) if ticks are scheduled. The live set is the one
 * other strong holder. So an allocator nobody references any more, whose magazines allocate nothing, is collected
 * with everything it holds a tick or two later, while the threads that used it run on; each thread keeps a cleared
 * weak reference and an index slot of it (a few dozen bytes): protocol 8 (dropped allocators). The fast path pays a
 * type check for a strong link, and two type checks and a {@code Reference.get()} for a lasting weak one.
 */
final class ThreadMagazines implements ThreadMagazine.Registry {
    private final ChunkSupply supply;
    private final boolean forAllThreads;
    /** Each thread's link to its magazine: the magazine itself, or its {@link ThreadMagazine#weakLink}. */
    private final MagazineSlot slot = new MagazineSlot();
    /** Thread magazines alive, strongly: lets trim() reach them and dead threads' magazines be ended. */
    private final Set<ThreadMagazine> live = ConcurrentHashMap.newKeySet();
    /**
     * True once any thread that is not a {@code FastThreadLocalThread} may have a magazine of its own. Read on every
     * plain-thread allocation, written once.
     */
    private volatile boolean plainThreadMagazines;

    ThreadMagazines(ChunkSupply supply, boolean forAllThreads) {
        this.supply = supply;
        this.forAllThreads = forAllThreads;
        this.plainThreadMagazines = forAllThreads;
    }

    /** The calling thread's own magazine, or null if it uses the stripes. */
    ThreadMagazine current() {
        // A plain thread's thread-local lookup is a ThreadLocal search: skip it unless some plain thread may have a
        // magazine. A stale read is harmless: a thread that attached itself set the flag before its own lookup.
        Thread thread = Thread.currentThread();
        if (!(thread instanceof FastThreadLocalThread) && (!lvPlainThreadMagazines() || isVirtual(thread))) {
            return null;
        }
        Object link = slot.getIfExists();
        if (link instanceof ThreadMagazine) {
            return (ThreadMagazine) link;
        }
        // A lasting weak link needs no look at the decay: nothing will ever make it strong again.
        ThreadMagazine magazine = link instanceof LastingWeakLink ? ((LastingWeakLink) link).get() : null;
        return magazine != null ? magazine : currentLinkedWeakly(link);
    }

    /**
     * Cold: the thread's link is a weak link that may change, or is cleared or missing: its magazine, linked as
     * {@link #linkFor} says now (strongly again if an idle tick will weaken it, as the allocation that follows makes it
     * busy); else a new magazine if the thread gets one.
     */
    private ThreadMagazine currentLinkedWeakly(Object link) {
        ThreadMagazine magazine = linkedMagazine(link);
        if (magazine == null) {
            return newMagazineIfEligible();
        }
        Object wanted = linkFor(magazine);
        if (wanted != link) {
            slot.set(wanted);
        }
        return magazine;
    }

    /**
     * Owner: how its thread links {@code magazine} after an allocation: strongly if an idle tick will weaken the link,
     * weakly for good if no tick can ever run while the thread is idle, else weakly until the next allocation looks.
     */
    private static Object linkFor(ThreadMagazine magazine) {
        return magazine.decayRunsWhenIdle() ? magazine
            : magazine.linkStaysWeak() ? magazine.lastingWeakLink : magazine.weakLink;
    }

    /** Owner: how its thread links {@code magazine} when it is idle or its ticks stopped: weakly. */
    private static Object weakLinkFor(ThreadMagazine magazine) {
        return magazine.linkStaysWeak() ? magazine.lastingWeakLink : magazine.weakLink;
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
        slot.set(linkFor(magazine));
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

    /**
     * Owner: an idle tick, or ticks that moved to the owner's slow paths. The link is weak already if no tick was ever
     * scheduled; it becomes lasting if no tick can run again while the thread is idle.
     */
    @Override
    public void linkWeakly(ThreadMagazine magazine) {
        Object link = slot.getIfExists();
        if (linkedMagazine(link) == magazine) {
            Object weak = weakLinkFor(magazine);
            if (weak != link) {
                slot.set(weak);
            }
        }
    }

    /** The magazine a slot's value links to, strongly or weakly, or null. */
    @SuppressWarnings("unchecked") // the slot holds a magazine or its weak link
    private static ThreadMagazine linkedMagazine(Object link) {
        return link instanceof ThreadMagazine ? (ThreadMagazine) link
            : link == null ? null : ((WeakReference<ThreadMagazine>) link).get();
    }

    /** The calling thread's link to its magazine as its slot holds it now, or null; tests read it. */
    Object currentLink() {
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
    private static final class MagazineSlot extends FastThreadLocal<Object> {
        @Override
        protected void onRemoval(Object link) {
            ThreadMagazine magazine = linkedMagazine(link);
            if (magazine != null && magazine.registry != null) {
                magazine.registry.end(magazine);
            }
        }
    }
}
