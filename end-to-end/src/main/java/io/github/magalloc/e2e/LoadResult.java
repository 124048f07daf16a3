package io.github.magalloc.e2e;

import org.HdrHistogram.Histogram;

import java.util.List;

/**
 * @param verified       responses whose status, length and CRC32C matched (h2load: responses with a 2xx status)
 * @param failures       wrong responses, connection errors and requests left unanswered
 * @param failureSamples the first few failure descriptions
 * @param latencyNanos   request write to response read, per verified response
 */
public record LoadResult(long verified, long failures, List<String> failureSamples, Histogram latencyNanos,
                         long elapsedNanos) {

    public double requestsPerSecond() {
        return verified * 1e9 / Math.max(1, elapsedNanos);
    }

    public double latencyMicros(double percentile) {
        return latencyNanos.getValueAtPercentile(percentile) / 1000.0;
    }

    @Override
    public String toString() {
        return describe("verified");
    }

    /** {@code countLabel} names what {@code verified} counts: "verified" (built-in client) or "2xx" (h2load). */
    public String describe(String countLabel) {
        return String.format("%s=%d failures=%d req/s=%.0f p50=%.0fus p99=%.0fus p99.9=%.0fus%s", countLabel,
                verified, failures, requestsPerSecond(), latencyMicros(50), latencyMicros(99), latencyMicros(99.9),
                failureSamples.isEmpty() ? "" : " first failures: " + failureSamples);
    }
}
