package io.github.magalloc.e2e;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.SizeDistribution;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server on magalloc, in one JVM with the load generator: at least 10,000 verified requests of random sizes over
 * several connections directly, and as many through the TCP proxy, with leak detection at PARANOID. Fails on any wrong
 * byte, any leak report, or allocator used memory above its idle level once the connections have closed.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class EndToEndIntegrationTest {
    private static final int REQUESTS = 10_000;
    /** A run's time budget: its request count ends it, and only a hang reaches this. */
    private static final Duration HANG_BOUND = Duration.ofMinutes(10);

    private static LeakWatcher leaks;
    private static ResourceLeakLevel previousLevel;

    /** Holder so the level set by LeakWatcher can be put back for other test classes. */
    private record ResourceLeakLevel(io.netty.util.ResourceLeakDetector.Level level) {
    }

    @BeforeAll
    static void watchLeaks() throws Exception {
        previousLevel = new ResourceLeakLevel(io.netty.util.ResourceLeakDetector.getLevel());
        leaks = LeakWatcher.install();
    }

    @AfterAll
    static void restoreLeakLevel() {
        io.netty.util.ResourceLeakDetector.setLevel(previousLevel.level());
    }

    @Test
    void magallocServesVerifiedRequestsDirectAndThroughProxyWithoutLeaks() throws Exception {
        leakCheckCanFail();
        MagazineByteBufAllocator alloc = new MagazineByteBufAllocator(true);

        try (E2eServer server = E2eServer.start(alloc, Transport.NIO, 1, true)) {
            LoadConfig direct = new LoadConfig("127.0.0.1", server.httpPort(), 4, 4, REQUESTS,
                    HANG_BOUND, 7,
                    List.of(SizeDistribution.SOCKET_PROXY::next, SizeDistribution.API_GATEWAY::next,
                            BodySizes.uniform(0, 65_536)), 0.5, Transport.NIO);
            LoadConfig proxied = direct.withPort(server.port());

            // Warm-up on both paths, then the idle level: no connection open, trimmed.
            assertAllVerified(LoadGenerator.run(direct.withBudget(500, HANG_BOUND)), 500);
            assertAllVerified(LoadGenerator.run(proxied.withBudget(500, HANG_BOUND)), 500);
            awaitNoConnections(server);
            IdleMemory.trimEverywhere(alloc, server.groups());
            long idle = AllocatorKind.usedMemory(alloc);
            long crossBefore = server.proxy().crossThreadReleases();

            LoadResult d = LoadGenerator.run(direct);
            System.out.println("direct: " + d);
            assertAllVerified(d, REQUESTS);

            LoadResult p = LoadGenerator.run(proxied.withBudget(REQUESTS, HANG_BOUND));
            System.out.println("proxy:  " + p + ", buffers released on the other event loop: "
                    + (server.proxy().crossThreadReleases() - crossBefore));
            assertAllVerified(p, REQUESTS);
            // Every proxied buffer was released by the event loop that did not read it.
            assertThat(server.proxy().crossThreadReleases() - crossBefore).isGreaterThan(0);
            assertThat(server.proxy().sameThreadReleases()).isZero();

            awaitNoConnections(server);
            IdleMemory.trimEverywhere(alloc, server.groups());
            assertThat(IdleMemory.excess(alloc, idle, IdleMemory.TOLERANCE_BYTES)).isNull();
        }

        leaks.provokeReports(alloc, 1_000);
        assertThat(leaks.reports()).as("ByteBuf leak reports").isEmpty();
    }

    /**
     * Netty's detector only sees buffers that the allocator wraps with toLeakAwareBuffer(): without that, magalloc
     * leaks would be invisible to users' leak detection and to the test above.
     */
    @Test
    void magallocBuffersAreLeakTracked() {
        ByteBuf buf = new MagazineByteBufAllocator(true).directBuffer(16);
        try {
            assertThat(buf.getClass().getSimpleName())
                    .as("magalloc returns a leak-aware buffer under PARANOID").contains("LeakAware");
        } finally {
            buf.release();
        }
    }

    /**
     * The same mechanism must report a buffer leaked on purpose, or an empty report at the end would prove nothing.
     * Uses a magalloc allocator, which is leak-aware under PARANOID (see magallocBuffersAreLeakTracked).
     */
    private static void leakCheckCanFail() throws InterruptedException {
        ByteBufAllocator alloc = new MagazineByteBufAllocator(true);
        leakOne(alloc);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // only a bug reaches it
        while (leaks.reports().isEmpty() && System.nanoTime() < deadline) {
            leaks.provokeReports(alloc, 200);
        }
        assertThat(leaks.reports()).as("a deliberately leaked buffer is reported").isNotEmpty();
        assertThat(leaks.reports().get(0)).contains("leakOne");
        leaks.clear();
    }

    private static void leakOne(ByteBufAllocator alloc) {
        ByteBuf leaked = alloc.directBuffer(128);
        leaked.writeLong(42); // recorded access, so the report carries this method in its trace
    }

    private static void assertAllVerified(LoadResult r, long expected) {
        assertThat(r.failureSamples()).as("failures").isEmpty();
        assertThat(r.failures()).isZero();
        assertThat(r.verified()).isEqualTo(expected);
    }

    private static void awaitNoConnections(E2eServer server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // only a bug reaches it
        while (server.openConnections() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(server.openConnections()).as("server connections still open").isZero();
    }
}
