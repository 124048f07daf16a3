package io.github.magalloc.e2e;

import io.github.magalloc.workload.AllocatorKind;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One allocator's measured window, from the load generator's result and the server's stats before and after it.
 * Memory figures are taken after the load connections have closed.
 */
public record RunRow(AllocatorKind allocator, long verified, long failures, double requestsPerSecond, double p50Micros,
                     double p99Micros, double p999Micros, double allocatedBytesPerRequest, long gcCount,
                     long gcMillis, long rssBytes, long allocatorUsedBytes) {

    public static RunRow of(AllocatorKind allocator, LoadResult load, ServerStats before, ServerStats after) {
        long served = Math.max(1, after.requests() - before.requests());
        return new RunRow(allocator, load.verified(), load.failures(), load.requestsPerSecond(),
                load.latencyMicros(50), load.latencyMicros(99), load.latencyMicros(99.9),
                (double) (after.allocatedBytes() - before.allocatedBytes()) / served,
                after.gcCount() - before.gcCount(), after.gcMillis() - before.gcMillis(), after.rssBytes(),
                after.allocatorUsedBytes());
    }

    /** Per-field median of several rounds of one allocator (verified and failed summed), for noisy machines. */
    public static RunRow median(List<RunRow> rounds) {
        RunRow first = rounds.get(0);
        return new RunRow(first.allocator, rounds.stream().mapToLong(RunRow::verified).sum(),
                rounds.stream().mapToLong(RunRow::failures).sum(),
                median(rounds, RunRow::requestsPerSecond), median(rounds, RunRow::p50Micros),
                median(rounds, RunRow::p99Micros), median(rounds, RunRow::p999Micros),
                median(rounds, RunRow::allocatedBytesPerRequest), (long) median(rounds, r -> r.gcCount),
                (long) median(rounds, r -> r.gcMillis), (long) median(rounds, r -> r.rssBytes),
                (long) median(rounds, r -> r.allocatorUsedBytes));
    }

    private static double median(List<RunRow> rounds, ToDoubleFunction<RunRow> f) {
        double[] v = rounds.stream().mapToDouble(f).sorted().toArray();
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** The values the table shows, in column order. */
    double[] values() {
        return new double[] {requestsPerSecond, p50Micros, p99Micros, p999Micros, allocatedBytesPerRequest, gcCount,
                gcMillis, rssBytes / 1048576.0, allocatorUsedBytes / 1048576.0};
    }
}
