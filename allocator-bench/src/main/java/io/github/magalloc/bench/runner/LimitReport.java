package io.github.magalloc.bench.runner;

import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.LimitScenario;
import io.netty.util.internal.PlatformDependent;

import java.util.concurrent.TimeUnit;

/**
 * Memory under a limit, in a JVM of its own (the runner starts one per row, with the limit and nothing else that
 * changes how direct memory is taken, or with Netty's no-cleaner buffers): {@link LimitScenario} with the live bytes
 * at a share of the limit, the JVM's max direct memory as Netty reads it, or the max heap.
 *
 * <p>Prints one tab-separated {@code LIMIT} line: allocator, heap|direct, live percent, limit bytes, live bytes, rounds
 * done, rounds, allocations, failed allocations, longest allocation in ns, elapsed ns, the first failure's message (or
 * -). Usage: {@code LimitReport ALLOCATOR heap|direct LIVE_PERCENT ROUNDS SECONDS}.
 */
public final class LimitReport {
    static final String PREFIX = "LIMIT\t";
    private static final String USAGE = "usage: LimitReport ALLOCATOR heap|direct LIVE_PERCENT ROUNDS SECONDS";
    private static final long SEED = 57;

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println(USAGE);
            System.exit(2);
        }
        AllocatorKind kind = AllocatorKind.parse(args[0]);
        boolean direct = args[1].equals("direct");
        int percent = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        long seconds = Long.parseLong(args[4]);
        long limit = direct ? PlatformDependent.estimateMaxDirectMemory() : Runtime.getRuntime().maxMemory();
        long live = limit * percent / 100;

        LimitScenario scenario = new LimitScenario(kind.create(direct), direct);
        try {
            LimitScenario.Result result = scenario.run(rounds, live, SEED,
                System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds));
            String failure = result.firstFailure() == null ? "-" : result.firstFailure().replace('\t', ' ');
            System.out.println(PREFIX + kind.label() + "\t" + (direct ? "direct" : "heap") + "\t" + percent + "\t"
                + limit + "\t" + live + "\t" + result.roundsDone() + "\t" + result.rounds() + "\t"
                + result.allocations() + "\t" + result.failures() + "\t" + result.longestNanos() + "\t"
                + result.elapsedNanos() + "\t" + failure);
        } finally {
            scenario.close();
        }
        // Loops that a stalled allocation still holds must not keep the JVM: the row is printed.
        System.exit(0);
    }
}
