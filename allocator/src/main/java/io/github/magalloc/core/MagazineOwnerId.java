package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The first of {@link Magazine}'s fields, the ones releasing threads read: the owner thread's id, which every release
 * reads, and the size classes marked by foreign releases, which every foreign release of a size-classed segment reads.
 * A cache line of {@link CacheLinePadding} comes before them and one of {@link MagazineOwnerIdPad} after them.
 */
abstract class MagazineOwnerId extends CacheLinePadding {
    /** The owner id of a magazine that no thread owns: matches no thread, so every release goes to the kind. */
    static final long NO_OWNER_THREAD = -1;

    private static final VarHandle FOREIGN_RELEASE_CLASSES;

    static {
        try {
            FOREIGN_RELEASE_CLASSES = MethodHandles.lookup()
                .findVarHandle(MagazineOwnerId.class, "foreignReleaseClasses", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        if (SizeClasses.COUNT > Long.SIZE) {
            throw new ExceptionInInitializerError("one bit per size class: " + SizeClasses.COUNT + " classes");
        }
    }

    /**
     * The id of the thread that owns the lists without a lock, or {@link #NO_OWNER_THREAD}. Written at most twice:
     * in the constructor and once to {@link #NO_OWNER_THREAD} when a thread magazine ends (protocol 4 (ended
     * threads)). A releasing thread compares it with its own id: it can equal its own id only while it is the
     * owner (ids are never reused, and the owner's own write comes before anything it does later).
     */
    private volatile long ownerThreadId;

    /**
     * Bit {@code c} set: a release from another thread may wait in the remote queue of a chunk of size class
     * {@code c} that no refill has looked at since (protocol 1a (foreign release marks)):
     * <pre>
     *   slot claimed and not drained in a full chunk of class c  =>  bit c set  ∨  its releaser has yet to mark
     * </pre>
     * Set by releasers after they publish, only when clear (a stream of releases reads the line and does not write
     * it); cleared by the owner before it looks through the class's full chunks.
     */
    private volatile long foreignReleaseClasses;

    MagazineOwnerId(long ownerThreadId) {
        this.ownerThreadId = ownerThreadId;
    }

    final long lvOwnerThreadId() {
        return ownerThreadId;
    }

    /** Volatile: one side of the ended-thread handshake (protocol 4 (ended threads)). */
    final void svOwnerThreadId(long id) {
        ownerThreadId = id;
    }

    /**
     * Any thread, after publishing a segment of class {@code sizeClass} in a chunk's queue (or the owner, for a claim
     * it found unpublished): the class's full chunks are worth a look. The volatile read orders after the claim's CAS,
     * and an atomic OR keeps the other classes' bits that another releaser may set at the same time.
     */
    final void markForeignRelease(int sizeClass) {
        long bit = 1L << sizeClass;
        if ((foreignReleaseClasses & bit) == 0) {
            FOREIGN_RELEASE_CLASSES.getAndBitwiseOr(this, bit);
        }
    }

    /**
     * Owner: clears the mark of {@code sizeClass} before a look at its full chunks; returns whether it was set. The
     * atomic AND (ordered before the look's volatile reads of the queues' producer indexes) clears only this bit.
     */
    final boolean takeForeignReleaseMark(int sizeClass) {
        long bit = 1L << sizeClass;
        return (foreignReleaseClasses & bit) != 0
            && ((long) FOREIGN_RELEASE_CLASSES.getAndBitwiseAnd(this, ~bit) & bit) != 0;
    }

    /** Tests read it: whether the mark of {@code sizeClass} is set. */
    final boolean lvForeignReleaseMarked(int sizeClass) {
        return (foreignReleaseClasses & (1L << sizeClass)) != 0;
    }
}
