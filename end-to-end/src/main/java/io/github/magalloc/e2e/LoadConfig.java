package io.github.magalloc.e2e;

import java.time.Duration;
import java.util.List;

/**
 * A bounded closed-loop load: {@code connections} keep-alive connections, each with up to {@code pipeline} requests in
 * flight, until {@code maxRequests} have been sent or {@code duration} has passed, whichever comes first.
 *
 * @param sizes        body sizes are drawn from these, one picked uniformly per request
 * @param echoFraction share of POST /echo requests; the rest are GET /gen
 */
public record LoadConfig(String host, int port, int connections, int pipeline, long maxRequests, Duration duration,
                         long seed, List<BodySizes> sizes, double echoFraction, Transport transport) {

    public LoadConfig {
        if (connections < 1 || pipeline < 1 || maxRequests < 1 || sizes.isEmpty()) {
            throw new IllegalArgumentException("bad load config");
        }
    }

    public LoadConfig withPort(int newPort) {
        return new LoadConfig(host, newPort, connections, pipeline, maxRequests, duration, seed, sizes, echoFraction,
                transport);
    }

    public LoadConfig withBudget(long newMaxRequests, Duration newDuration) {
        return new LoadConfig(host, port, connections, pipeline, newMaxRequests, newDuration, seed, sizes, echoFraction,
                transport);
    }
}
