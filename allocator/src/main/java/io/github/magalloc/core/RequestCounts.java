package io.github.magalloc.core;

/**
 * A magazine's allocations and bytes requested per size class, for the waste statistics
 * ({@code metric().allocations()}, {@code requestedBytes()}). Written by the magazine's owner only, plain: a stripe's
 * allocations add here, a thread magazine's current chunks count their own and add them here when they stop being
 * current, at a decay tick and when the magazine ends. Read by the metric on any thread, each value one 64-bit read,
 * so a snapshot may lag but never tears or goes down.
 */
final class RequestCounts {
    /** Per size class c: {@code [2c]} allocations, {@code [2c + 1]} bytes requested. */
    private final long[] counts = new long[2 * SizeClasses.COUNT];

    /** A zeroed array of totals in the layout of {@link #addTo}. */
    static long[] newTotals() {
        return new long[2 * SizeClasses.COUNT];
    }

    /** Owner: one allocation of size class {@code sizeClass} for {@code requestedBytes}. */
    void count(int sizeClass, int requestedBytes) {
        int at = sizeClass << 1;
        counts[at]++;
        counts[at + 1] += requestedBytes;
    }

    /** Owner, cold: adds what a current chunk of {@code sizeClass} counted ({@link SizeClassChunk#moveCountsTo}). */
    void add(int sizeClass, long allocations, long requestedBytes) {
        int at = sizeClass << 1;
        counts[at] += allocations;
        counts[at + 1] += requestedBytes;
    }

    /** Any thread: adds these counts to {@code totals} (plain reads: a snapshot). */
    void addTo(long[] totals) {
        for (int i = 0; i < totals.length; i++) {
            totals[i] += counts[i];
        }
    }
}
