package io.github.magalloc.bench.receive;

import io.github.magalloc.receive.ReceiveMetric;

import java.util.Locale;

/**
 * What one run of the receive scenario measured. Over the measured window: requests completed and their rate, the
 * server allocator's used memory (heap + direct, its own metric) and the request bytes in flight, sampled every
 * 5 ms, and the heap the server's worker thread allocated per request. Over the whole run (warm-up included):
 * {@link OutOfMemoryError}s and other exceptions the server's pipeline saw, requests whose body was not complete,
 * the memory of the read buffers, reconnections and the clients' exceptions, and the receive allocator's
 * {@link ReceiveMetric} when it has one ({@code null} otherwise). After the clients stopped: the bytes still in
 * flight (0 unless a request was lost) and the used memory then, before any decay (the idle footprint).
 */
public record ReceiveResult(ReceiveConfig config, double measuredSeconds, long requests, double meanUsedBytes,
                            double meanInFlightBytes, long maxUsedBytes, int samples, double heapBytesPerRequest,
                            long outOfMemoryErrors, long otherErrors, long totalRequests, long badRequests,
                            String readBuffers, long reconnects, long clientErrors, ReceiveMetric metric,
                            boolean stoppedCleanly, long inFlightAfterStop, long idleUsedBytes) {
    /** The tab-separated fields of {@link #tsv()}, in order. */
    public static final String FIELDS = "allocator, heap|direct, setting, mode, clients, warm-up s, measured s, "
        + "requests, requests/s, mean used B, mean in flight B, used/in flight, max used B, OOMs, heap B/request, "
        + "read buffers (heap|direct|mixed), metric reads, metric bytes read, metric capacity allocated, "
        + "metric capacity cut back (the four -1 without a metric), other errors, incomplete requests, reconnects, "
        + "client errors, stopped cleanly, in flight after stop B, used after stop B";

    public double requestsPerSecond() {
        return measuredSeconds > 0 ? requests / measuredSeconds : Double.NaN;
    }

    /** Mean used memory over mean bytes in flight; NaN with nothing in flight. */
    public double usedPerInFlight() {
        return meanInFlightBytes > 0 ? meanUsedBytes / meanInFlightBytes : Double.NaN;
    }

    /** One tab-separated line of {@link #FIELDS}; bytes as whole numbers. */
    public String tsv() {
        ReceiveMetric m = metric;
        return String.join("\t", config.allocator().label(), config.direct() ? "direct" : "heap",
            config.setting().label(), config.mode().label(), String.valueOf(config.clients()),
            num(config.warmupSeconds()), num(measuredSeconds), String.valueOf(requests), num(requestsPerSecond()),
            String.valueOf(Math.round(meanUsedBytes)), String.valueOf(Math.round(meanInFlightBytes)),
            num(usedPerInFlight()), String.valueOf(maxUsedBytes), String.valueOf(outOfMemoryErrors),
            num(heapBytesPerRequest), readBuffers,
            String.valueOf(m == null ? -1 : m.reads()), String.valueOf(m == null ? -1 : m.bytesRead()),
            String.valueOf(m == null ? -1 : m.capacityAllocated()),
            String.valueOf(m == null ? -1 : m.capacityCutBack()),
            String.valueOf(otherErrors), String.valueOf(badRequests), String.valueOf(reconnects),
            String.valueOf(clientErrors),
            String.valueOf(stoppedCleanly), String.valueOf(inFlightAfterStop), String.valueOf(idleUsedBytes));
    }

    private static String num(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "NaN";
    }
}
