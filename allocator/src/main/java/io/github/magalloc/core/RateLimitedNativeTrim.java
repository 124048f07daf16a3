package io.github.magalloc.core;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Trims the C heap ({@link NativeHeap}) on the background thread once at least {@link #MIN_FREED_BYTES} of direct
 * memory went back to the C allocator and then none for {@code quietMillis}, or at the latest
 * {@link #MAX_WAIT_PERIODS} periods after the last trim (protocol 3b (resident memory)). The freeing thread (an
 * event loop's decay tick, a releaser, the reuse pool's purge) only adds to a counter and, when that makes a trim
 * due, schedules a look: a trim never runs on it.
 *
 * <p>Why wait for quiet: traffic that comes in bursts frees memory at every ebb and takes it again at the next
 * flood. Trimmed between them, every page of it would be faulted in again at the next burst (a fifth more time per
 * buffer in {@code BurstReport}'s bursts of 100 ms); kept, it is reused as it is, and the trim comes once the bursts
 * stop. The latest time bounds what a steady trickle of frees keeps.
 *
 * <pre>
 *   freedBytes >= MIN_FREED_BYTES  =>  a look is pending          (whenever no look runs; {@link DueTask})
 *   a look trims iff  now - lastFree >= quietMillis  or  now - lastTrim >= MAX_WAIT_PERIODS * quietMillis
 * </pre>
 * So two trims start at least {@code quietMillis} apart, and memory freed at time t is trimmed by
 * {@code t + quietMillis} if nothing is freed after it, unless less than {@link #MIN_FREED_BYTES} was freed since
 * the last trim.
 */
final class RateLimitedNativeTrim implements NativeTrim {
    /** Freed bytes that make a trim due: below it, the pages given back would not be worth the trim. */
    static final long MIN_FREED_BYTES = 1L << 20;
    /** A trim comes at the latest this many quiet periods after the last, however the frees keep coming. */
    static final long MAX_WAIT_PERIODS = 10;

    private final long quietNanos;
    private final Supplier<String> trim;
    /** {@link System#nanoTime} outside tests. */
    private final LongSupplier nanoClock;
    /** Bytes freed since the last trim started. */
    private final AtomicLong freedBytes = new AtomicLong();
    private final DueTask look;
    /** When memory was last freed; any freeing thread writes it (the latest write is near enough). */
    private volatile long lastFreeNanos;
    /** When the last trim started; written by the look only (one runs at a time). */
    private volatile long lastTrimNanos;
    /** Set by a trim that could not be done here (see {@link NativeHeap}): no more are scheduled. */
    private volatile boolean unavailable;
    /** Trims done; written by the look only. */
    private volatile long trims;
    /** Trims that could not be done then ({@link NativeHeap#POSTPONED}); written by the look only. */
    private volatile long postponed;
    /** After a postponed trim, no look before this ({@link System#nanoTime}); written by the look only. */
    private volatile long notBeforeNanos;

    /** Trims the C heap ({@link NativeHeap#trim}) on the background thread. */
    RateLimitedNativeTrim(long quietMillis) {
        this(quietMillis, NativeHeap::trim, BackgroundThread.SCHEDULER, System::nanoTime);
    }

    /**
     * {@code trim} trims the C heap and returns null where it cannot; {@code scheduler} runs the looks;
     * {@code nanoClock} tells the time.
     */
    RateLimitedNativeTrim(long quietMillis, Supplier<String> trim, BackgroundThread.Scheduler scheduler,
                          LongSupplier nanoClock) {
        this.quietNanos = quietMillis * 1_000_000;
        this.trim = trim;
        this.nanoClock = nanoClock;
        this.lastTrimNanos = nanoClock.getAsLong();
        // Never on the requester, which may be an event loop: with no thread to run it, the trim is skipped.
        this.look = new DueTask(scheduler, this::delayMillis, this::isDue, this::trimIfQuiet, false);
    }

    @Override
    public void afterFree(long bytes) {
        lastFreeNanos = nanoClock.getAsLong();
        freedBytes.addAndGet(bytes); // the handshake's write (DueTask)
        look.request();
    }

    private boolean isDue() {
        return freedBytes.get() >= MIN_FREED_BYTES && !unavailable;
    }

    /** Until the quiet period after the last free is over, or the latest time of the next trim, if sooner. */
    private long delayMillis() {
        long now = nanoClock.getAsLong();
        long untilQuiet = lastFreeNanos + quietNanos - now;
        long untilLatest = lastTrimNanos + MAX_WAIT_PERIODS * quietNanos - now;
        long wait = Math.max(Math.min(untilQuiet, untilLatest), notBeforeNanos - now);
        return Math.max(1, wait / 1_000_000);
    }

    /** The background thread: trims if it is time (else the look is scheduled again, {@link DueTask#run}). */
    private void trimIfQuiet() {
        long now = nanoClock.getAsLong();
        if (now - lastFreeNanos < quietNanos && now - lastTrimNanos < MAX_WAIT_PERIODS * quietNanos) {
            return;
        }
        lastTrimNanos = now;
        long freed = freedBytes.getAndSet(0); // frees counted from here on make the next trim due
        String done = trim.get();
        if (done == null) {
            unavailable = true;
        } else if (done == NativeHeap.POSTPONED) {
            // Not now (no direct memory for the trim's own first use): the memory freed still waits for a trim,
            // which a look a quiet period later tries again.
            freedBytes.addAndGet(freed);
            notBeforeNanos = now + quietNanos;
            postponed++;
        } else {
            trims++; // one look runs at a time (DueTask), so the one writer needs no atomic
        }
    }

    /** Trims postponed so far (the direct memory limit was full); tests read it. */
    long postponed() {
        return postponed;
    }

    /** Trims done so far. */
    long trims() {
        return trims;
    }

    /** True while a look is pending; tests read it. */
    boolean isPending() {
        return look.isPending();
    }
}
