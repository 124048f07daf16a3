package io.github.magalloc.e2e;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.SizeDistribution;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The server on magalloc over TLS (JDK and OpenSSL providers) and HTTP/2 (h2 by ALPN over TLS, h2c with prior
 * knowledge), directly and through the proxy that terminates TLS, with the built-in load generator in the same JVM:
 * {@value #REQUESTS} requests per path of random sizes up to 200 kB (beyond HTTP/2's 64 KiB flow-control window), each
 * verified byte for byte; every buffer read, decrypted, framed or aggregated on the server's channels comes from
 * magalloc ({@link AllocatorCheck}); the proxy releases what it forwards on the other event loop; and no leak report
 * with leak detection at PARANOID. A provider that cannot load here (OpenSSL) is skipped with a printed line.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ProtocolIntegrationTest {
    private static final int REQUESTS = 300;
    /** A run's time budget: its request count ends it, and only a hang reaches this. */
    private static final Duration HANG_BOUND = Duration.ofMinutes(10);

    private static LeakWatcher leaks;
    private static ResourceLeakDetector.Level previousLevel;

    @BeforeAll
    static void watchLeaks() throws Exception {
        previousLevel = ResourceLeakDetector.getLevel();
        leaks = LeakWatcher.install();
    }

    @AfterAll
    static void restoreLeakLevel() {
        ResourceLeakDetector.setLevel(previousLevel);
    }

    @ParameterizedTest(name = "{0}, TLS {1}")
    @CsvSource({"HTTP2, JDK", "HTTP2, OPENSSL", "HTTP2, NONE", "HTTP1, JDK", "HTTP1, OPENSSL"})
    void verifiedResponsesAndMagallocBuffersDirectAndThroughProxy(Protocol protocol, Tls tls) throws Exception {
        String unavailable = tls.unavailability();
        if (unavailable != null) {
            System.out.println("ProtocolIntegrationTest: " + protocol.label() + " over TLS " + tls.label()
                    + " skipped: " + unavailable);
        }
        assumeTrue(unavailable == null, unavailable);
        ByteBufAllocator alloc = new MagazineByteBufAllocator(true);
        leaks.clear();

        for (boolean withProxy : new boolean[] {false, true}) {
            try (E2eServer server = E2eServer.start(alloc, Transport.NIO, 1, withProxy, protocol, tls)) {
                LoadConfig load = new LoadConfig("127.0.0.1", server.port(), 4, 4, REQUESTS, HANG_BOUND,
                        17, List.of(SizeDistribution.SOCKET_PROXY::next, SizeDistribution.API_GATEWAY::next,
                        BodySizes.uniform(0, 200_000)), 0.5, Transport.NIO, protocol, tls);
                LoadResult r = LoadGenerator.run(load);
                String path = (withProxy ? "proxy" : "direct") + ", " + protocol.label() + ", TLS " + tls.label();
                ServerStats stats = server.stats();
                System.out.println(path + ": " + r + "; server buffers checked " + stats.buffersChecked()
                        + ", not from magalloc " + stats.buffersForeign() + ", proxy releases on the other loop "
                        + stats.proxyCrossThread());

                assertThat(r.failureSamples()).as(path + " failures").isEmpty();
                assertThat(r.failures()).as(path).isZero();
                assertThat(r.verified()).as(path).isEqualTo(REQUESTS);
                assertThat(stats.buffersChecked()).as(path).isGreaterThan(REQUESTS);
                assertThat(stats.buffersForeign()).as(path + ": " + server.foreignBufferSamples()).isZero();
                if (withProxy) {
                    assertThat(stats.proxyCrossThread()).as(path).isPositive();
                    assertThat(stats.proxySameThread()).as(path).isZero();
                }
            }
        }

        leaks.provokeReports(alloc, 300);
        assertThat(leaks.reports()).as("ByteBuf leak reports").isEmpty();
    }
}
