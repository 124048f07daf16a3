package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
import io.github.magalloc.buffer.SlabStack;

import java.util.concurrent.TimeUnit;

/**
 * Frees direct slabs whose memory goes back by closing their own shared arena ({@link DirectMemoryRelease}
 * {@code BY_CLOSING_ITS_ARENA}) on magalloc-arena-closes, in batches, then asks for a trim of the C heap: a close is a
 * handshake with every thread of the JVM, which an event loop's decay tick or a releasing thread must not wait for.
 *
 * <pre>
 *   pending slabs  =>  a close is due on magalloc-arena-closes       (whenever no close runs; {@link DueTask})
 *   pendingBytes  <=  maxPendingBytes                                 (beyond it the freeing thread closes its own)
 *   unclosedBytes  ==  pendingBytes + closingBytes                    (freed by the pool, still counted by the limit)
 * </pre>
 * A slab is handed here once, by the one caller that took it out of its pool's live slabs, so it is closed once.
 * The bound keeps a thread that frees faster than the background thread closes from piling up memory nobody uses;
 * where no background thread can run, the freeing thread closes them itself rather than keep them. Memory waiting here
 * still counts against the direct memory limit, so an allocation that finds the limit reached closes every pool's
 * first, counts what is being closed as on its way back ({@link #unclosedBytes}), and waits a bounded time for a
 * close that another thread has begun ({@link #awaitCloses}).
 */
final class ArenaCloser {
    /** Bytes waiting for their close at most: a few huge buffers', far more than a decay tick frees at once. */
    static final long MAX_PENDING_BYTES = 64L << 20;

    private final NativeTrim trim;
    private final long maxPendingBytes;
    /** Guarded by this object's lock. */
    private final SlabStack pending = new SlabStack();
    /** Bytes of the slabs queued; guarded by this object's lock; read by the due check. */
    private long pendingBytes;
    /** Bytes of the slabs taken off the queue whose close has not returned yet; guarded by this object's lock. */
    private long closingBytes;
    private final DueTask closing;

    ArenaCloser(NativeTrim trim, BackgroundThread.Scheduler scheduler, long maxPendingBytes) {
        this.trim = trim;
        this.maxPendingBytes = maxPendingBytes;
        this.closing = new DueTask(scheduler, () -> 0, this::hasPending, this::closePending, true);
    }

    /** Any thread: {@code slab} is no longer used; its arena is closed soon on magalloc-arena-closes. */
    void close(Slab slab) {
        boolean queued;
        synchronized (this) {
            queued = pendingBytes + slab.size <= maxPendingBytes;
            if (queued) {
                pending.push(slab);
                pendingBytes += slab.size;
            }
        }
        if (queued) {
            closing.request();
        } else {
            slab.free();
            trim.afterFree(slab.size);
        }
    }

    private synchronized boolean hasPending() {
        return pendingBytes > 0;
    }

    /** Tests read it. */
    synchronized long pendingBytes() {
        return pendingBytes;
    }

    /** Bytes freed by the pool that still count against the limit: queued, or being closed now. */
    synchronized long unclosedBytes() {
        return pendingBytes + closingBytes;
    }

    /**
     * Making room: waits, until {@code deadlineNanos} at most, for the closes that other threads have begun to return
     * (a close is a handshake of a few milliseconds; its memory counts until it returns). An interrupted thread stops
     * waiting and keeps its interrupt: an allocation throws no {@link InterruptedException}.
     */
    synchronized void awaitCloses(long deadlineNanos) {
        long left;
        while (closingBytes > 0 && (left = deadlineNanos - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Closes every pending slab's arena, one handshake each, then asks for a trim: on magalloc-arena-closes, and on a
     * thread whose slab allocation found direct memory exhausted (any pool's), since pending memory still counts
     * against the limit. Both may run at once: each slab is taken once.
     */
    void closePending() {
        long closedBytes = 0;
        Slab slab;
        while ((slab = next()) != null) {
            closeTaken(slab);
            closedBytes += slab.size;
        }
        if (closedBytes > 0) {
            trim.afterFree(closedBytes);
        }
    }

    /**
     * Closes one pending slab's arena, on a thread whose slab does not fit while memory waits here; returns its bytes,
     * or 0 if none was pending. One at a time: each close is a handshake with every thread, so a shortage closes only
     * as many as its slab needs.
     */
    long closeOne() {
        Slab slab = next();
        if (slab == null) {
            return 0;
        }
        closeTaken(slab);
        trim.afterFree(slab.size);
        return slab.size;
    }

    /** Takes the next slab to close off the queue; its bytes count as closing until {@link #closeTaken} returns. */
    private synchronized Slab next() {
        Slab slab = pending.pop();
        if (slab != null) {
            pendingBytes -= slab.size;
            closingBytes += slab.size;
        }
        return slab;
    }

    private void closeTaken(Slab slab) {
        try {
            slab.free();
        } finally {
            closed(slab.size);
        }
    }

    private synchronized void closed(long bytes) {
        closingBytes -= bytes;
        notifyAll();
    }
}
