package io.github.magalloc.e2e;

import java.time.Duration;
import java.util.List;

/**
 * A bounded closed-loop load: {@code connections} keep-alive connections, each with up to {@code pipeline} requests in
 * flight (pipelined for HTTP/1.1, concurrent streams for HTTP/2), until {@code maxRequests} have been sent or
 * {@code duration} has passed, whichever comes first.
 *
 * @param sizes        body sizes are drawn from these, one picked uniformly per request
 * @param echoFraction share of POST /echo requests; the rest are GET /gen
 * @param protocol     HTTP/1.1 or HTTP/2 (h2c with prior knowledge in plain text, h2 by ALPN over TLS)
 * @param tls          the TLS provider, or none
 */
public record LoadConfig(String host, int port, int connections, int pipeline, long maxRequests, Duration duration,
                         long seed, List<BodySizes> sizes, double echoFraction, Transport transport,
                         Protocol protocol, Tls tls) {

    public LoadConfig {
        if (connections < 1 || pipeline < 1 || maxRequests < 1 || sizes.isEmpty()) {
            throw new IllegalArgumentException("bad load config");
        }
    }

    /** HTTP/1.1 in plain text. */
    public LoadConfig(String host, int port, int connections, int pipeline, long maxRequests, Duration duration,
                      long seed, List<BodySizes> sizes, double echoFraction, Transport transport) {
        this(host, port, connections, pipeline, maxRequests, duration, seed, sizes, echoFraction, transport,
                Protocol.HTTP1, Tls.NONE);
    }

    public LoadConfig withPort(int newPort) {
        return new LoadConfig(host, newPort, connections, pipeline, maxRequests, duration, seed, sizes, echoFraction,
                transport, protocol, tls);
    }

    public LoadConfig withBudget(long newMaxRequests, Duration newDuration) {
        return new LoadConfig(host, port, connections, pipeline, newMaxRequests, newDuration, seed, sizes, echoFraction,
                transport, protocol, tls);
    }

    public LoadConfig withProtocol(Protocol newProtocol, Tls newTls) {
        return new LoadConfig(host, port, connections, pipeline, maxRequests, duration, seed, sizes, echoFraction,
                transport, newProtocol, newTls);
    }
}
