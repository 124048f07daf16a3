package io.github.magalloc.bench;

import io.github.magalloc.workload.Rss;

/**
 * Hands footprint snapshots from benchmark workers to {@link FootprintProfiler}. Workers record in their
 * iteration teardown, while their live buffers still exist (on the last iteration the trial teardown releases
 * them before the profiler's afterIteration runs, so the profiler cannot look itself).
 */
public final class FootprintProbe {
    private static long liveBytes;
    private static long usedBytes;
    private static long rssBytes;
    private static int records;

    private FootprintProbe() {
    }

    /**
     * One worker's snapshot: the bytes its live buffers asked for, and the allocator's used memory seen from it.
     * Live bytes add up over workers; used memory and RSS are whole-allocator and whole-process, so keep the max.
     */
    public static synchronized void record(long workerLiveBytes, long allocatorUsedBytes) {
        liveBytes += workerLiveBytes;
        usedBytes = Math.max(usedBytes, allocatorUsedBytes);
        rssBytes = Math.max(rssBytes, Rss.bytes());
        records++;
    }

    static synchronized void reset() {
        liveBytes = 0;
        usedBytes = 0;
        rssBytes = 0;
        records = 0;
    }

    /** {live, used, rss} or null when no worker recorded in this iteration. */
    static synchronized long[] snapshot() {
        return records == 0 ? null : new long[] {liveBytes, usedBytes, rssBytes};
    }
}
