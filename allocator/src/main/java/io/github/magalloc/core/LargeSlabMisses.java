package io.github.magalloc.core;

/**
 * Whether large chunks' empty slabs may wait in the reuse pool above its budget: only while the pool keeps missing
 * large slabs, that is while large buffers swing. A queue of large buffers that fills and drains empties and refills
 * far more chunks than the budget holds, and misses a slab for every chunk of every swing: kept for a delay, the
 * drained slabs serve the next swing. A steady churn of large buffers misses a few slabs a second, each a trip to the
 * system that costs less than the memory an excess would hold to spare it.
 *
 * <p>Misses are counted in windows of {@code windowNanos}; the pool swings while the current or the previous window
 * has at least {@code swingMisses}. Not thread-safe: guarded by the reuse pool's lock.
 */
final class LargeSlabMisses {
    private final long windowNanos;
    private final int swingMisses;
    /** Whether a window has started: nanoTime has no zero to start the first from. */
    private boolean started;
    private long windowStart;
    private int misses;
    private int previousMisses;

    /** {@code windowNanos} from 1 to 2^61: two windows must not overflow. */
    LargeSlabMisses(long windowNanos, int swingMisses) {
        if (windowNanos < 1 || windowNanos > 1L << 61 || swingMisses < 1) {
            throw new IllegalArgumentException("window " + windowNanos + " ns, swing " + swingMisses + " misses");
        }
        this.windowNanos = windowNanos;
        this.swingMisses = swingMisses;
    }

    /** The pool had no slab for a large chunk at time {@code now} (nanoTime). */
    void count(long now) {
        roll(now);
        misses++;
    }

    /** Whether large buffers swing at time {@code now} (nanoTime). */
    boolean swinging(long now) {
        roll(now);
        return misses >= swingMisses || previousMisses >= swingMisses;
    }

    private void roll(long now) {
        long elapsed = now - windowStart;
        if (!started || elapsed >= windowNanos) {
            previousMisses = started && elapsed < 2 * windowNanos ? misses : 0;
            misses = 0;
            windowStart = now;
            started = true;
        }
    }
}
