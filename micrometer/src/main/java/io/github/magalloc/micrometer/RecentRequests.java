package io.github.magalloc.micrometer;

import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.SizeClassRequests;

import java.util.concurrent.TimeUnit;

/**
 * The size-class request counts of one memory type as one scrape reads them: a scrape calls three counters per size
 * class one after the other, and a {@link SizeClassRequests} snapshot sums every magazine, so the counters share a
 * snapshot taken at most {@link #MAX_AGE_NANOS} ago instead of taking a hundred. Scrapes are seconds apart, so each
 * takes a fresh one. Holds no reference to the metric (Micrometer holds that weakly, and so must this, which every
 * meter's function captures).
 */
final class RecentRequests {
    static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final boolean direct;
    private SizeClassRequests snapshot;
    private long takenAtNanos;
    /** Snapshots taken; tests read it. */
    private long taken;

    RecentRequests(boolean direct) {
        this.direct = direct;
    }

    synchronized SizeClassRequests of(MagazineByteBufAllocatorMetric metric) {
        long now = System.nanoTime();
        if (snapshot == null || now - takenAtNanos > MAX_AGE_NANOS) {
            snapshot = metric.sizeClassRequests(direct);
            takenAtNanos = now;
            taken++;
        }
        return snapshot;
    }

    synchronized long taken() {
        return taken;
    }
}
