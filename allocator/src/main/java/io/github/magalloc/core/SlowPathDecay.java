package io.github.magalloc.core;

/**
 * Decay ticks (protocol 7 (decay)) that the owner runs itself, on its slow paths (a refill, a large allocation), once a
 * period has passed since the last: for a thread magazine whose thread runs no executor (a plain thread that opted in)
 * or whose executor refuses tasks (a harness executor that throws from {@code execute} and {@code schedule}, a custom
 * executor that is closed). Nothing is asked of any executor, so nothing can be refused, and nothing is added to the
 * fast path: a tick costs one clock read per slow path while the magazine holds a chunk.
 *
 * <pre>
 *   two ticks are at least periodNanos apart          (the rule of the marks, as on an event loop)
 *   holdsChunks == false  =>  the magazine held no chunk at the last tick, and none was taken since
 * </pre>
 * What it cannot do: a thread that stops allocating, or that only reuses segments of its current chunks, reaches no
 * slow path, so its magazine keeps what it holds until {@code trim()} or the thread's end.
 */
class SlowPathDecay extends MagazineDecay {
    final ThreadMagazine magazine;
    private final long periodNanos;
    /** Owner only: whether ticks run (the magazine held a chunk at the last tick, or took one since). */
    private boolean holdsChunks;
    /** Owner only: when the next tick is due ({@link System#nanoTime()}). */
    private long nextTickNanos;

    SlowPathDecay(ThreadMagazine magazine, long periodMillis) {
        this.magazine = magazine;
        this.periodNanos = periodMillis * 1_000_000;
    }

    @Override
    void onChunkTaken() {
        if (!holdsChunks) {
            holdsChunks = true;
            nextTickNanos = System.nanoTime() + periodNanos;
        }
    }

    @Override
    void onSlowPath() {
        if (holdsChunks) {
            long now = System.nanoTime();
            if (now - nextTickNanos >= 0) {
                nextTickNanos = now + periodNanos;
                holdsChunks = magazine.decayTick();
            }
        }
    }

    /** Nothing to ask: the owner collects at its next large allocation, a slow path. */
    @Override
    void requestCollect() {
    }

    /** An idle owner reaches no slow path: no tick runs while it allocates nothing. */
    @Override
    boolean runsWhenIdle() {
        return false;
    }

    @Override
    boolean ticksOnSlowPaths() {
        return true;
    }
}
