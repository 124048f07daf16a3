package io.github.magalloc.core;

import java.lang.ref.WeakReference;

/**
 * Each platform thread's {@link BufferObjectCache} for the stripes of one pool, kept in a JDK {@code ThreadLocal}:
 * these threads are mostly not {@code FastThreadLocalThread}s, for which that is one lookup where Netty's takes two,
 * and it takes no slot of Netty's index table, which never gives slots back.
 *
 * <p><b>Held weakly.</b> A {@code ThreadLocal}'s entry holds its value strongly for as long as the thread lives, and
 * here the value (the cache, its objects, their pool) reaches the {@code ThreadLocal} itself, so the entry would
 * never be cleared and every thread that ever allocated would keep the pool. The entry holds a weak reference
 * instead. What keeps a cache alive: each of its live buffers (an object's home is its cache) and the stripe the
 * thread used last ({@link Stripe#lastPlainThreadObjects}). A cache collected while none of its objects is live is
 * made again at the thread's next allocation; its objects were unreachable, so none is ever handed to another
 * thread (protocol 5 (buffer objects)).
 */
final class PlainThreadObjects {
    private final PoolContext context;
    private final ThreadLocal<WeakReference<BufferObjectCache>> caches = new ThreadLocal<>();

    PlainThreadObjects(PoolContext context) {
        this.context = context;
    }

    /** The calling thread's cache, made if it has none (or its last one was collected). */
    BufferObjectCache ofCurrentThread() {
        WeakReference<BufferObjectCache> link = caches.get();
        BufferObjectCache cache = link == null ? null : link.get();
        if (cache == null) {
            cache = new BufferObjectCache(context, Thread.currentThread().getId());
            caches.set(new WeakReference<>(cache));
        }
        return cache;
    }
}
