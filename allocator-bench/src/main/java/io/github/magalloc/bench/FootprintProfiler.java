package io.github.magalloc.bench;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.ScalarResult;

import java.util.Collection;
import java.util.List;

/**
 * {@code -prof io.github.magalloc.bench.FootprintProfiler}: adds the steady-state footprint that workers
 * recorded through {@link FootprintProbe} as secondary results, averaged over iterations:
 * {@code mem.used} (allocator's used heap+direct), {@code mem.live} (bytes the live buffers asked for),
 * {@code mem.used/live} and {@code mem.rss} (process VmRSS). Benchmarks that record nothing get nothing.
 */
public final class FootprintProfiler implements InternalProfiler {
    @Override
    public String getDescription() {
        return "allocator used memory vs live bytes at the end of each iteration";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        FootprintProbe.reset();
    }

    @Override
    public Collection<ScalarResult> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        long[] s = FootprintProbe.snapshot();
        if (s == null) {
            return List.of();
        }
        long live = s[0];
        long used = s[1];
        return List.of(
                new ScalarResult("mem.used", used, "B", AggregationPolicy.AVG),
                new ScalarResult("mem.live", live, "B", AggregationPolicy.AVG),
                new ScalarResult("mem.used/live", live == 0 ? Double.NaN : (double) used / live, "x",
                        AggregationPolicy.AVG),
                new ScalarResult("mem.rss", s[2], "B", AggregationPolicy.AVG));
    }
}
