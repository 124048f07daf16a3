package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * What a slab allocation does when its slab does not fit (protocol 9 (making room)): it gets back, from every pool
 * of the kind in the JVM, what magalloc holds free, and tries again after each step. The limit is the JVM's (max
 * direct memory, or the heap), so memory one set of threads freed is what another set needs, and it may sit in any
 * pool, stripe or thread's magazine.
 *
 * <ol>
 *   <li>With no waiting on anyone: the calling thread's own magazines give back what they hold free (its owner is
 *       the caller), the stripes theirs (under their locks), every reuse pool its slabs, and every pending arena
 *       close runs.</li>
 *   <li>The hand-over: every thread magazine's unused large chunks are detached by the caller, under each chunk's
 *       own lock, whoever owns the magazine (protocol 6 (large chunks)); the owner forgets them at its next look.</li>
 *   <li>A round: every other thread magazine is asked to give back what it holds free (its event loop runs the
 *       request as a task; any owner does it at its next refill or large allocation), and the caller waits for the
 *       answers, trying again at each, for at most {@link #WAIT_NANOS}. One round per kind runs at a time; a thread
 *       that finds one running waits for it instead (answering requests to its own magazines while it waits).</li>
 * </ol>
 * Invariant: an allocation fails only after every step, so only memory that no step reaches stays: chunks that
 * hold live buffers, and what the magazines of threads that did not answer within the wait keep beyond their unused
 * large chunks (current chunks, chunks with releases queued, kept runs). No step waits for anyone longer than the
 * wait, and an owner that answers gives back on its own thread without waiting for any other.
 */
final class MakingRoom {
    /**
     * How long an allocation waits for the answers of the magazines it asked: long enough for a busy event loop to
     * reach a slow path or run a task, short enough that no allocation waits a tenth of a second.
     */
    static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How often a thread waiting for another's round tries again (it gets no answers of its own to wake it). */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    static final MakingRoom DIRECT = new MakingRoom(true);
    static final MakingRoom HEAP = new MakingRoom(false);

    private final boolean direct;
    /** Every pool of the kind, weakly: a dropped allocator's pool leaves the list. */
    private final WatchList<ChunkSupply> pools = new WatchList<>();
    /** The round in progress, or null. */
    private final AtomicReference<GiveBackRound> round = new AtomicReference<>();

    private MakingRoom(boolean direct) {
        this.direct = direct;
    }

    static MakingRoom of(boolean direct) {
        return direct ? DIRECT : HEAP;
    }

    /** A pool of this kind, now complete: from now on another pool's shortage reaches it. */
    void add(ChunkSupply pool) {
        pools.add(pool);
    }

    /** The pools of this kind alive now. */
    List<ChunkSupply> pools() {
        return pools.snapshot();
    }

    /** What one shortage came to, for the error and the flight recorder. */
    static final class Shortage {
        /** Bytes of slabs given back to the system while making room, by any thread. */
        long givenBackBytes;
        /** Magazines asked that had not answered when the caller stopped waiting. */
        int unanswered;
        long elapsedNanos;
        /** The system's refusal of a slab, if the system was asked and refused; else null. */
        OutOfMemoryError refusal;
    }

    /**
     * Cold: makes room for the slab of {@code size} bytes that {@code requester} could not take, trying again after
     * each step; returns the slab, or null if it never fit. Never called with a lock held: the steps take the
     * stripes' locks and may wait for answers.
     */
    Slab makeRoom(ChunkSupply requester, int size, boolean pooled, Shortage shortage) {
        long start = System.nanoTime();
        List<ChunkSupply> all = pools.snapshot();
        long freedBefore = freedBytes(all);
        long request = direct ? Slab.directRequestBytes(size) : size;
        try {
            for (ChunkSupply pool : all) {
                pool.giveBackHeldByCaller();
                pool.giveBackShared();
            }
            freeUntilFits(all, request);
            Slab slab = requester.tryTakeSlab(size, pooled, shortage);
            if (slab != null) {
                return slab;
            }
            for (ChunkSupply pool : all) {
                pool.reclaimUnusedLargeChunks();
            }
            freeUntilFits(all, request);
            slab = requester.tryTakeSlab(size, pooled, shortage);
            if (slab != null) {
                return slab;
            }
            return askAndWait(all, requester, size, pooled, request, start + WAIT_NANOS, shortage);
        } finally {
            shortage.givenBackBytes = freedBytes(all) - freedBefore;
            shortage.elapsedNanos = System.nanoTime() - start;
        }
    }

    /**
     * Step 3: asks every other thread magazine to give back, or joins the round in progress, and waits until the slab
     * fits, every magazine asked answered (or the round joined ended), or the deadline; then a last try.
     */
    private Slab askAndWait(List<ChunkSupply> all, ChunkSupply requester, int size, boolean pooled, long request,
                            long deadlineNanos, Shortage shortage) {
        GiveBackRound mine = new GiveBackRound(Thread.currentThread());
        GiveBackRound joined = round.get();
        boolean asking = joined == null && round.compareAndSet(null, mine);
        if (!asking && joined == null) {
            joined = round.get(); // another thread started one just now
        }
        try {
            if (asking) {
                for (ChunkSupply pool : all) {
                    pool.askThreadMagazines(mine);
                }
            }
            while (true) {
                for (ChunkSupply pool : all) {
                    // Answers a request to the caller's own magazines (another thread's round may have asked them).
                    pool.giveBackHeldByCaller();
                }
                freeUntilFits(all, request); // what the answers retired into the reuse pools
                // A heap slab that does not fit costs a full collection to find out: heap tries once, at the end.
                if (direct) {
                    Slab slab = requester.tryTakeSlab(size, pooled, shortage);
                    if (slab != null) {
                        return slab;
                    }
                }
                long left = deadlineNanos - System.nanoTime();
                boolean over = asking ? mine.allAnswered() : joined == null || round.get() != joined;
                if (left <= 0 || over) {
                    break;
                }
                LockSupport.parkNanos(this, asking ? left : Math.min(left, POLL_NANOS));
            }
            shortage.unanswered = asking ? mine.unanswered() : 0;
        } finally {
            if (asking) {
                round.compareAndSet(mine, null);
            }
        }
        freeUntilFits(all, request);
        return requester.tryTakeSlab(size, pooled, shortage);
    }

    /**
     * Frees, one slab at a time, until {@code request} bytes fit: first the slabs freed whose memory still waits for
     * its arena's close (given back already, but counted), then the reuse pools' slabs. One at a time and no further,
     * as each close is a handshake with every thread of the JVM, and what stays pooled serves the next chunks. Where
     * nothing tells whether a slab fits (heap, or no direct memory counter to read), every one.
     */
    private void freeUntilFits(List<ChunkSupply> all, long request) {
        closeUnclosedArenas(all, request);
        for (ChunkSupply pool : all) {
            while (!fits(request) && pool.freeOnePooledSlab() > 0) {
                while (!fits(request) && pool.closeOnePendingArena() > 0) {
                    // the slab just freed may wait for its arena's close
                }
            }
        }
    }

    /**
     * Closes pending arenas until {@code request} fits, then, if it still does not, waits for the closes other threads
     * have begun (their memory counts until they return), for {@link #WAIT_NANOS} at most, and closes again.
     */
    private void closeUnclosedArenas(List<ChunkSupply> all, long request) {
        closePendingArenas(all, request);
        if (fits(request)) {
            return;
        }
        long deadline = System.nanoTime() + WAIT_NANOS;
        for (ChunkSupply pool : all) {
            pool.awaitArenaCloses(deadline);
        }
        closePendingArenas(all, request);
    }

    private void closePendingArenas(List<ChunkSupply> all, long request) {
        for (ChunkSupply pool : all) {
            while (!fits(request) && pool.closeOnePendingArena() > 0) {
                // closed one
            }
        }
    }

    private boolean fits(long request) {
        return direct && DirectMemoryLimit.JVM.fits(request);
    }

    /**
     * Bytes of magalloc's slabs of this kind alive now, in every pool, and of those freed whose arenas are not closed
     * yet (they will be back).
     */
    static long reservedBytes(List<ChunkSupply> pools) {
        long bytes = 0;
        for (ChunkSupply pool : pools) {
            // A slab freed but waiting for its arena's close still counts against the limit, and will be back.
            bytes += pool.context.metrics.reservedBytes() + pool.unclosedArenaBytes();
        }
        return bytes;
    }

    private static long freedBytes(List<ChunkSupply> pools) {
        long bytes = 0;
        for (ChunkSupply pool : pools) {
            bytes += pool.context.metrics.freedBytes();
        }
        return bytes;
    }
}
