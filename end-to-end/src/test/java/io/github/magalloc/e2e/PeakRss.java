package io.github.magalloc.e2e;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.PeakScenario;

/**
 * The JVM {@link ResidentMemoryTest} starts: a peak of direct buffers on two event loops and two plain threads
 * ({@link PeakScenario}), released, then light traffic; prints {@code RSS seconds used rssAboveBaseline} at the
 * given seconds after the release. Usage: {@code PeakRss NATIVE_TRIM_MILLIS PEAK_MIB OWNER|OTHER SECONDS...}; with
 * {@code -DpeakRss.untilSlackMib=N} it stops after the first sample whose resident memory above the baseline is at
 * most the used memory plus N MiB.
 */
public final class PeakRss {
    private PeakRss() {
    }

    public static void main(String[] args) throws Exception {
        long untilSlack = Long.getLong("peakRss.untilSlackMib", -1) << 20;
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder()
            .nativeTrimMillis(Long.parseLong(args[0])).build();
        PeakScenario scenario = new PeakScenario(allocator, true, 2, 2);
        try {
            scenario.peak(Long.parseLong(args[1]) << 20, PeakScenario.Releaser.valueOf(args[2]), 31);
            scenario.startAfter(PeakScenario.After.LIGHT);
            for (int i = 3; i < args.length; i++) {
                long used = scenario.usedMemoryAt(Double.parseDouble(args[i]));
                long rss = scenario.rssAboveBaseline();
                System.out.println("RSS " + args[i] + " " + used + " " + rss);
                if (untilSlack >= 0 && rss <= used + untilSlack) {
                    break;
                }
            }
        } finally {
            scenario.close();
        }
    }
}
