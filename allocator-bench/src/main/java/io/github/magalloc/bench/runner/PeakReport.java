package io.github.magalloc.bench.runner;

import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.PeakScenario;

/**
 * Memory an allocator holds after a traffic peak on event loops, in a JVM of its own (the runner starts one per
 * configuration): {@link PeakScenario} with two loops, then its used memory (heap + direct, the allocator's own
 * metric) at each of the given seconds after the release. Nobody calls a trim method.
 *
 * <p>Prints one tab-separated {@code PEAK} line per sample: allocator, heap|direct, after, releaser, peak bytes,
 * seconds after the release, used bytes. Usage:
 * {@code PeakReport ALLOCATOR heap|direct LIGHT|IDLE|MOVING OWNER|OTHER PEAK_MIB SECONDS...}.
 */
public final class PeakReport {
    static final String PREFIX = "PEAK\t";
    private static final long SEED = 31;

    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            System.err.println("usage: PeakReport ALLOCATOR heap|direct LIGHT|IDLE|MOVING OWNER|OTHER PEAK_MIB SECONDS...");
            System.exit(2);
        }
        AllocatorKind kind = AllocatorKind.parse(args[0]);
        boolean direct = args[1].equals("direct");
        PeakScenario.After after = PeakScenario.After.valueOf(args[2]);
        PeakScenario.Releaser releaser = PeakScenario.Releaser.valueOf(args[3]);
        long peakBytes = Long.parseLong(args[4]) << 20;
        String config = kind.label() + "\t" + (direct ? "direct" : "heap") + "\t" + after + "\t" + releaser + "\t";

        PeakScenario scenario = new PeakScenario(kind.create(direct), direct, 2);
        try {
            long peak = scenario.peak(peakBytes, releaser, SEED);
            scenario.startAfter(after);
            for (int i = 5; i < args.length; i++) {
                long used = scenario.usedMemoryAt(Double.parseDouble(args[i]));
                System.out.println(PREFIX + config + peak + "\t" + args[i] + "\t" + used);
            }
        } finally {
            scenario.close();
        }
    }
}
