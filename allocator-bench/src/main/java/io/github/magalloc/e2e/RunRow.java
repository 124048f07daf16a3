package io.github.magalloc.e2e;

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

    /** The values the table shows, in column order. */
    double[] values() {
        return new double[] {requestsPerSecond, p50Micros, p99Micros, p999Micros, allocatedBytesPerRequest, gcCount,
                gcMillis, rssBytes / 1048576.0, allocatorUsedBytes / 1048576.0};
    }
}
