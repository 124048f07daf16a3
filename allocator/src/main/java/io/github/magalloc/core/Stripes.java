package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

/**
 * The stripes of one pool and how a plain thread (one without a magazine of its own) allocates from them: it tries
 * every stripe's lock without waiting, starting at its own (by thread id), so threads spread out, and waits on its
 * own stripe only when all are busy. It brings a buffer object (protocol 5 (buffer objects)): a platform thread of
 * its own thread's cache ({@link PlainThreadObjects}); a virtual thread of the stripe's {@link VirtualThreadObjects}.
 */
final class Stripes {
    /** The size class argument of a request above the size classes: a run of pages in a large chunk. */
    static final int ABOVE_SIZE_CLASSES = -1;

    private final ChunkSupply supply;
    private final Stripe[] stripes;
    /** Buffer objects of the platform threads without a magazine of their own. */
    private final PlainThreadObjects plainThreadObjects;

    Stripes(ChunkSupply supply, int count) {
        this.supply = supply;
        this.stripes = new Stripe[count];
        for (int i = 0; i < count; i++) {
            stripes[i] = new Stripe(supply);
        }
        this.plainThreadObjects = new PlainThreadObjects(supply.context);
    }

    /** A buffer of {@code sizeClass}, or a run of pages if it is {@link #ABOVE_SIZE_CLASSES}. */
    MagByteBuf allocate(int sizeClass, int initialCapacity, int maxCapacity) {
        return allocate(sizeClass, initialCapacity, maxCapacity, true);
    }

    /** New memory for a buffer that moves (growth, a shrink): like {@link #allocate}, but no request is counted. */
    MagByteBuf allocateForMove(int sizeClass, int capacity, int maxCapacity) {
        return allocate(sizeClass, capacity, maxCapacity, false);
    }

    /** {@code request}: counted in the size class's requests (the waste statistics), or a move, which is not. */
    private MagByteBuf allocate(int sizeClass, int initialCapacity, int maxCapacity, boolean request) {
        Stripe stripe = lockStripe();
        MagByteBuf buf;
        int slabSize;
        try {
            // The object first: if making it fails, nothing else was taken.
            buf = stripe.objectsOfCaller(plainThreadObjects).take();
            if (allocate(stripe, buf, sizeClass, initialCapacity, maxCapacity, null, request)) {
                return buf;
            }
            slabSize = sizeClass == ABOVE_SIZE_CLASSES ? stripe.newLargeSlabSize(initialCapacity)
                : stripe.nextChunkSize(sizeClass);
        } finally {
            stripe.unlock();
        }
        // The lock is given up while a slab is taken from the system (the JDK may collect garbage and sleep before it
        // gives up direct memory; nobody should wait for that behind this lock) and taken again, maybe of another
        // stripe. Safe because nothing is held across the gap but the caller's own object, and the second attempt
        // starts over: it uses the slab only if that stripe still has no room, and gives it back otherwise.
        Slab slab = supply.allocateSlab(slabSize); // may throw OutOfMemoryError: only the object was taken
        stripe = lockStripe();
        try {
            allocate(stripe, buf, sizeClass, initialCapacity, maxCapacity, slab, request);
            return buf;
        } finally {
            stripe.unlock();
        }
    }

    private static boolean allocate(Stripe stripe, MagByteBuf buf, int sizeClass, int initialCapacity,
                                    int maxCapacity, Slab spare, boolean request) {
        return sizeClass == ABOVE_SIZE_CLASSES ? stripe.allocateLarge(buf, initialCapacity, maxCapacity, spare)
            : stripe.allocate(buf, sizeClass, initialCapacity, maxCapacity, spare, request);
    }

    /**
     * A buffer object for the calling thread's buffer that needs no stripe's memory (huge): from its own cache, or,
     * on a virtual thread, from a stripe's {@link VirtualThreadObjects}, which only its lock holder takes from.
     */
    MagByteBuf takeObject() {
        if (!VirtualThreads.isVirtual(Thread.currentThread())) {
            return plainThreadObjects.ofCurrentThread().take();
        }
        Stripe stripe = lockStripe();
        try {
            return stripe.virtualThreadObjects.take();
        } finally {
            stripe.unlock();
        }
    }

    /** Tries every stripe without waiting first, so threads spread out; then waits on the thread's own stripe. */
    private Stripe lockStripe() {
        Stripe[] stripes = this.stripes;
        int start = (int) Thread.currentThread().getId();
        int mask = stripes.length - 1;
        for (int i = 0; i < stripes.length; i++) {
            Stripe stripe = stripes[(start + i) & mask];
            if (stripe.tryLock()) {
                return stripe;
            }
        }
        Stripe stripe = stripes[start & mask];
        stripe.lock();
        return stripe;
    }

    /** Each stripe, under its lock, gives back its entirely free chunks and unused large chunks. */
    void trim() {
        for (Stripe stripe : stripes) {
            stripe.trim();
        }
    }

    int count() {
        return stripes.length;
    }

    /** The stripe at {@code index}; for tests. */
    Stripe stripe(int index) {
        return stripes[index];
    }

    /** Adds every stripe's request counts to {@code totals} (racy reads: a snapshot). */
    void sumRequests(long[] totals) {
        for (Stripe stripe : stripes) {
            stripe.requests.addTo(totals);
        }
    }
}
