package io.github.magalloc.core;

/**
 * The first of {@link Magazine}'s fields: the owner thread's id, which every releasing thread reads, with a cache line
 * of {@link CacheLinePadding} before it and of {@link MagazineOwnerIdPad} after it.
 */
abstract class MagazineOwnerId extends CacheLinePadding {
    /** The owner id of a magazine that no thread owns: matches no thread, so every release goes to the kind. */
    static final long NO_OWNER_THREAD = -1;

    /**
     * The id of the thread that owns the lists without a lock, or {@link #NO_OWNER_THREAD}. Written at most twice:
     * in the constructor and once to {@link #NO_OWNER_THREAD} when a thread magazine ends (protocol 4 (ended
     * threads)). A releasing thread compares it with its own id: it can equal its own id only while it is the
     * owner (ids are never reused, and the owner's own write comes before anything it does later).
     */
    private volatile long ownerThreadId;

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
}
