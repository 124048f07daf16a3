package io.github.magalloc.e2e;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.SizeDistribution;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class H2loadTest {
    private static final int REQUESTS = 2_000;
    /** The summary of h2load 1.52.0 (Debian 12) after a 2 s run in which a third of the URIs answered 404. */
    private static final String OUTPUT = """
            Main benchmark duration is over for thread #0. Stopping all clients.
            Stopped all clients for thread #0

            finished in 2.00s, 1674.00 req/s, 10.77MB/s
            requests: 3348 total, 3356 started, 3348 done, 2233 succeeded, 1115 failed, 0 errored, 0 timeout
            status codes: 2233 2xx, 0 3xx, 1115 4xx, 0 5xx
            traffic: 21.53MB (22579905) total, 6.56KB (6722) headers (space savings 92.65%), 21.41MB (22455115) data
                                 min         max         mean         sd        +/- sd
            time for request:      608us    267.18ms      4.24ms     13.46ms    97.61%
            """;

    @Test
    void summaryGivesTimeFinishedRequestsAnd2xx() {
        H2load.Summary s = H2load.parse(OUTPUT);
        assertThat(s.seconds()).isEqualTo(2.0);
        assertThat(s.done()).isEqualTo(3348);
        assertThat(s.ok()).isEqualTo(2233);
    }

    /** A run under a second is reported in milliseconds (h2load 1.52.0, 2,000 requests over TLS). */
    @Test
    void aRunUnderASecondIsReadInMilliseconds() {
        H2load.Summary s = H2load.parse(OUTPUT.replace("finished in 2.00s,", "finished in 838.95ms,"));
        assertThat(s.seconds()).isCloseTo(0.83895, within(1e-9));
        assertThat(H2load.parse(OUTPUT.replace("finished in 2.00s,", "finished in 950.20us,")).seconds())
                .isCloseTo(0.00095020, within(1e-12));
    }

    @Test
    void outputWithoutASummaryIsRefused() {
        assertThatThrownBy(() -> H2load.parse("TLS handshake failed\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("in h2load output");
    }

    @Test
    void logLatenciesOf2xxOnlyInMicroseconds(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("log.tsv");
        Files.writeString(log, "1795771946258309\t200\t1000\n1795771946258311\t404\t5000000\n"
                + "1795771946258312\t-1\t7000000\n1795771946258313\t200\t3000\n");
        Histogram h = LoadGenerator.newHistogram();
        H2load.readLog(log, h);
        assertThat(h.getTotalCount()).isEqualTo(2);
        assertThat(h.getMaxValue()).isBetween(2_990_000L, 3_010_000L);
    }

    /**
     * Where h2load is installed: {@value #REQUESTS} requests per h2load process over HTTP/2 with TLS (JDK) against the
     * server on magalloc, however long a cold JVM's first TLS handshakes take.
     */
    @Test
    void drivesTheServerWhereInstalled() throws Exception {
        String unavailable = H2load.unavailability();
        if (unavailable != null) {
            System.out.println("H2loadTest: the run against the server skipped: " + unavailable);
        }
        assumeTrue(unavailable == null, unavailable);
        try (E2eServer server = E2eServer.start(new MagazineByteBufAllocator(true), Transport.NIO, 1, false,
                Protocol.HTTP2, Tls.JDK)) {
            LoadConfig load = new LoadConfig("127.0.0.1", 0, 2, 4, Long.MAX_VALUE, Duration.ofSeconds(2), 3,
                    List.of(SizeDistribution.SOCKET_PROXY::next, SizeDistribution.API_GATEWAY::next), 0.5,
                    Transport.NIO, Protocol.HTTP2, Tls.JDK);
            LoadResult r = new H2load(load, 16384).runRequests(server.port(), REQUESTS);
            System.out.println("h2load, h2 over TLS (JDK), " + REQUESTS + " requests a process: " + r.describe("2xx"));
            assertThat(r.failureSamples()).isEmpty();
            assertThat(r.failures()).isZero();
            assertThat(r.verified()).as("2xx responses of both processes").isEqualTo(2 * REQUESTS);
            assertThat(r.latencyNanos().getTotalCount()).isEqualTo(2 * REQUESTS);
            assertThat(server.stats().buffersForeign()).as(server.foreignBufferSamples()).isZero();
        }
    }
}
