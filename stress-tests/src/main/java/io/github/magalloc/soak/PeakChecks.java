package io.github.magalloc.soak;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.workload.PeakScenario;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The soak's check of protocol 7 (decay): traffic peaks on event loops ({@link PeakScenario}, 2 loops), one after
 * the other for the whole soak, on an allocator of their own that nobody trims (the soak's allocators are trimmed
 * all the time, which would hide what decay does). After each peak the used memory of the peak's memory type must
 * settle at or below that type's reuse budget plus {@link #SLACK} (within about 2 s; awaited up to
 * {@link #SETTLE_SECONDS}, which only a bug reaches on a busy machine); a peak that does not settle is a failure,
 * reported through the soak's {@code fail}, and the longest wait is reported.
 *
 * <p>The peaks take turns through every combination of heap or direct, released by the owning loops or by this
 * thread, and LIGHT, IDLE or MOVING traffic afterwards. The allocator lives as long as the soak, so memory that one
 * peak leaves behind counts against the next peaks of that type.
 */
final class PeakChecks implements Runnable {
    /** The allocator's reuse budget, per memory type: small, so memory kept beyond it shows. */
    static final long REUSE_BUDGET = 4L << 20;
    /**
     * Allowed above the budget once a peak has settled: the chunks the traffic after the peak keeps in use, one per
     * size class it allocates from on each of the 2 loops (MOVING: the current class and the one before it, chunks
     * of 64 or 128 KiB), with margin.
     */
    static final long SLACK = 1L << 20;
    private static final int LOOPS = 2;
    /** Decay gives memory back within 2 x decayMillis (1 s by default) of the release: a bound only a bug reaches. */
    private static final double SETTLE_SECONDS = 60;
    /** CI's soak length (docs/reliability.md): a soak up to this long peaks at CI_PEAK, a longer one at LONG_PEAK. */
    private static final long CI_SECONDS = 60;
    private static final long CI_PEAK = 32L << 20;
    private static final long LONG_PEAK = 256L << 20;

    private final MagazineByteBufAllocator allocator =
        MagazineByteBufAllocator.builder().reuseBudgetBytes(REUSE_BUDGET).build();
    private final long peakBytes;
    private final BooleanSupplier stop;
    private final Consumer<String> fail;
    // Written by the checking thread only (so ++ loses nothing), read by the soak's report.
    private volatile int checked;
    private volatile long longestWaitNanos;

    /**
     * Checks peaks sized for a soak of {@code soakSeconds} until {@code stop} is true (looked at between peaks), and
     * reports each failure to {@code fail}.
     */
    PeakChecks(long soakSeconds, BooleanSupplier stop, Consumer<String> fail) {
        this.peakBytes = soakSeconds <= CI_SECONDS ? CI_PEAK : LONG_PEAK;
        this.stop = stop;
        this.fail = fail;
    }

    @Override
    public void run() {
        for (int n = 0; !stop.getAsBoolean(); n++) {
            // Periods of 2, 4 and 3 peaks: all 12 combinations come round every 12 peaks.
            boolean direct = n % 2 == 1;
            PeakScenario.Releaser releaser = PeakScenario.Releaser.values()[n / 2 % 2];
            PeakScenario.After after = PeakScenario.After.values()[n % 3];
            String mode = (direct ? "direct" : "heap") + ", released by " + releaser + ", " + after + " after";
            try {
                check(direct, releaser, after, mode, n);
            } catch (Exception e) {
                fail.accept("peak check (" + mode + ") stopped by " + e);
                return;
            }
        }
    }

    /** Peaks checked so far. */
    int checked() {
        return checked;
    }

    long peakBytes() {
        return peakBytes;
    }

    /**
     * The longest wait after a checked peak's release for its memory to settle at or below the bound (all of
     * {@link #SETTLE_SECONDS} for a peak that did not).
     */
    long longestWaitNanos() {
        return longestWaitNanos;
    }

    private void check(boolean direct, PeakScenario.Releaser releaser, PeakScenario.After after, String mode,
                       long seed) throws Exception {
        PeakScenario scenario = new PeakScenario(allocator, direct, LOOPS);
        try {
            long peak = scenario.peak(peakBytes, releaser, seed);
            scenario.startAfter(after);
            long bound = REUSE_BUDGET + SLACK;
            long used = scenario.awaitAtMost(() -> used(direct), bound, SETTLE_SECONDS);
            double waited = scenario.secondsSinceRelease();
            if (used > bound) {
                fail.accept(String.format("after a peak of %,d bytes (%s), %,d bytes used %.1f s after the release;"
                        + " bound %,d (reuse budget %,d + %,d)", peak, mode, used, waited, bound,
                    REUSE_BUDGET, SLACK));
            }
            longestWaitNanos = Math.max(longestWaitNanos, (long) (waited * 1e9));
            checked++;
        } finally {
            scenario.close();
        }
    }

    /** Used memory of one type: the other type keeps what its own last peak left, checked after that peak. */
    private long used(boolean direct) {
        MagazineByteBufAllocatorMetric metric = allocator.metric();
        return direct ? metric.usedDirectMemory() : metric.usedHeapMemory();
    }
}
