package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a periodic flight-recorder event reports on: objects added as they are made (allocators' pools, receive
 * allocators, one per channel in some applications), held weakly so that nothing is kept alive for the event's sake.
 * Whether or not a recording enables the event, cleared entries leave the list: at every {@link #add} and
 * {@link #forEach}, and after every garbage collection while the list is not empty (a sweep on the
 * {@code magalloc-sweeper} thread, {@link AfterCollection}). So a list that millions of short-lived objects pass through
 * holds, a collection after they are gone, only the live ones.
 *
 * <p>An intrusive doubly linked list of the weak references under this object's lock: adding and removing cost no
 * table that grows with the peak and never shrinks (a hash set's would). Invariant, whenever the lock is free:
 * {@code size > 0 => a sweep is armed}: {@link #add} links, then arms if none is; the sweep disarms, prunes, then arms
 * again if entries are left (Dekker's handshake on {@link #sweepArmed} and the list, as in protocol 5a (virtual threads' objects)).
 *
 * @param <T> the watched objects' type
 */
public final class WatchList<T> {
    private final ReferenceQueue<T> cleared = new ReferenceQueue<>();
    /** Guarded by this object's lock. */
    private Watched<T> first;
    /** Guarded by this object's lock. */
    private int size;
    /** True while a sweep is due after the next collection. */
    private volatile boolean sweepArmed;
    private final Runnable sweep = this::sweep;

    private static final VarHandle SWEEP_ARMED;

    static {
        try {
            SWEEP_ARMED = MethodHandles.lookup().findVarHandle(WatchList.class, "sweepArmed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Watches {@code object} while something else references it. */
    public void add(T object) {
        removeCleared();
        Watched<T> entry = new Watched<>(object, cleared);
        synchronized (this) {
            entry.next = first;
            if (first != null) {
                first.previous = entry;
            }
            first = entry;
            size++;
        }
        armSweep();
    }

    /** Runs {@code action} for every watched object still reachable, under the list's lock. */
    public synchronized void forEach(Consumer<? super T> action) {
        removeCleared();
        for (Watched<T> entry = first; entry != null; entry = entry.next) {
            T object = entry.get();
            if (object != null) {
                action.accept(object);
            }
        }
    }

    /**
     * The watched objects still reachable, copied under the list's lock: for work that must not run under it (it is
     * one lock for the JVM, which every {@link #add} takes).
     */
    public synchronized List<T> snapshot() {
        removeCleared();
        List<T> objects = new ArrayList<>(size);
        for (Watched<T> entry = first; entry != null; entry = entry.next) {
            T object = entry.get();
            if (object != null) {
                objects.add(object);
            }
        }
        return objects;
    }

    /** Entries in the list, cleared ones not yet removed included. */
    public synchronized int size() {
        return size;
    }

    /** After a collection, on the sweeper's thread: prunes, and stays armed while entries are left. */
    private void sweep() {
        svSweepArmed(false);
        removeCleared();
        if (size() > 0) {
            armSweep();
        }
    }

    private void armSweep() {
        if (!lvSweepArmed() && casSweepArmed()) {
            AfterCollection.register(new Object(), sweep);
        }
    }

    private synchronized void removeCleared() {
        Object polled;
        while ((polled = cleared.poll()) != null) {
            @SuppressWarnings("unchecked") // only this list's entries are registered with its queue
            Watched<T> entry = (Watched<T>) polled;
            if (entry.previous != null) {
                entry.previous.next = entry.next;
            } else {
                first = entry.next;
            }
            if (entry.next != null) {
                entry.next.previous = entry.previous;
            }
            entry.previous = null;
            entry.next = null;
            size--;
        }
    }

    private boolean lvSweepArmed() {
        return sweepArmed;
    }

    /** Of the threads that find no sweep armed, one registers it. */
    private boolean casSweepArmed() {
        return SWEEP_ARMED.compareAndSet(this, false, true);
    }

    /** Volatile: the sweep's disarming comes before its look at the list (the handshake with {@link #add}). */
    private void svSweepArmed(boolean armed) {
        sweepArmed = armed;
    }

    /** An entry, linked to its neighbours under the list's lock; a reference is enqueued once, so removed once. */
    private static final class Watched<T> extends WeakReference<T> {
        Watched<T> previous;
        Watched<T> next;

        Watched(T object, ReferenceQueue<T> queue) {
            super(object, queue);
        }
    }
}
