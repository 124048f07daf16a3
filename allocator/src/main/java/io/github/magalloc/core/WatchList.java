package io.github.magalloc.core;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a periodic flight-recorder event, or a shortage, reports on or reaches: objects added as they are made
 * (allocators' pools, receive allocators, one per channel in some applications), held weakly so that nothing is kept
 * alive for the list's sake. Cleared entries leave the list at every {@link #add}, {@link #forEach} and
 * {@link #snapshot}, and, while the list holds more than {@link #PRUNE_FROM} entries, on {@code magalloc-background}
 * every {@link #PRUNE_DELAY_MILLIS} ms: so a list that millions of short-lived objects pass through holds, a little
 * after they are gone, only the live ones. Nothing is registered for good anywhere (no task waits for every
 * collection), so a list keeps no class loader of an application that is gone.
 *
 * <p>An intrusive doubly linked list of the weak references under this object's lock: adding and removing cost no
 * table that grows with the peak and never shrinks (a hash set's would).
 *
 * @param <T> the watched objects' type
 */
public final class WatchList<T> {
    /** Entries above which the list also prunes itself in the background. */
    static final int PRUNE_FROM = 256;
    static final long PRUNE_DELAY_MILLIS = 10_000;

    private final ReferenceQueue<T> cleared = new ReferenceQueue<>();
    /** Guarded by this object's lock. */
    private Watched<T> first;
    /** Guarded by this object's lock; read without it by the prune's check. */
    private volatile int size;
    /** Prunes a big list on magalloc-background; requested at every add. */
    private final DueTask prune = new DueTask(BackgroundThread.SCHEDULER, () -> PRUNE_DELAY_MILLIS,
        () -> size > PRUNE_FROM, this::removeCleared, false);

    /** An empty list. */
    public WatchList() {
    }

    /**
     * Watches {@code object} while something else references it.
     *
     * @param object the object to watch, held weakly
     */
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
        prune.request();
    }

    /**
     * Runs {@code action} for every watched object still reachable, under the list's lock.
     *
     * @param action what to run on each object, newest first; it must not wait for another thread that uses the list
     */
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
     *
     * @return a new modifiable list of the objects, newest first
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

    /**
     * Entries in the list, cleared ones not yet removed included.
     *
     * @return the number of entries, 0 or more
     */
    public synchronized int size() {
        return size;
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

    /** An entry, linked to its neighbours under the list's lock; a reference is enqueued once, so removed once. */
    private static final class Watched<T> extends WeakReference<T> {
        Watched<T> previous;
        Watched<T> next;

        Watched(T object, ReferenceQueue<T> queue) {
            super(object, queue);
        }
    }
}
