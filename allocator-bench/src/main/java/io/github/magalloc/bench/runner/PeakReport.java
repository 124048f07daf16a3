package io.github.magalloc.bench.runner;

import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.PeakScenario;

/**
 * Memory an allocator holds after a traffic peak, in a JVM of its own (the runner starts one per configuration):
 * {@link PeakScenario} on {@code LOOPS} event loops and {@code PLAIN} plain threads, then, at each of the given
 * seconds after the release, its used memory (heap + direct, the allocator's own metric) and the process's resident
 * memory above its level just before the peak (start the JVM with {@code -Xms} equal to {@code -Xmx} and
 * {@code -XX:+AlwaysPreTouch}, so that the Java heap does not move it). Nobody calls a trim method.
 *
 * <p>Prints one tab-separated {@code PEAK} line per sample: allocator, heap|direct, after, releaser, peak bytes,
 * seconds after the release, used bytes, resident bytes above the baseline (-1 where /proc is not readable). Usage:
 * {@code PeakReport ALLOCATOR heap|direct LIGHT|IDLE|MOVING OWNER|OTHER PEAK_MIB LOOPS PLAIN SECONDS...}.
 */
public final class PeakReport {
    static final String PREFIX = "PEAK\t";
    private static final String USAGE =
        "usage: PeakReport ALLOCATOR heap|direct LIGHT|IDLE|MOVING OWNER|OTHER PEAK_MIB LOOPS PLAIN SECONDS...";
    private static final long SEED = 31;

    public static void main(String[] args) throws Exception {
        if (args.length < 8) {
            System.err.println(USAGE);
            System.exit(2);
        }
        AllocatorKind kind = AllocatorKind.parse(args[0]);
        boolean direct = args[1].equals("direct");
        PeakScenario.After after = PeakScenario.After.valueOf(args[2]);
        PeakScenario.Releaser releaser = PeakScenario.Releaser.valueOf(args[3]);
        long peakBytes = Long.parseLong(args[4]) << 20;
        int loops = Integer.parseInt(args[5]);
        int plainThreads = Integer.parseInt(args[6]);
        String config = kind.label() + "\t" + (direct ? "direct" : "heap") + "\t" + after + "\t" + releaser + "\t";

        PeakScenario scenario = new PeakScenario(kind.create(direct), direct, loops, plainThreads);
        try {
            long peak = scenario.peak(peakBytes, releaser, SEED);
            scenario.startAfter(after);
            for (int i = 7; i < args.length; i++) {
                long used = scenario.usedMemoryAt(Double.parseDouble(args[i]));
                long rss = scenario.rssAboveBaseline();
                System.out.println(PREFIX + config + peak + "\t" + args[i] + "\t" + used + "\t" + rss);
            }
        } finally {
            scenario.close();
        }
    }
}
