package io.github.magalloc.examples.vertx;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.examples.PoolGrowth;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpServer;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class VertxHttpTest {
    private static final Buffer BODY = Buffer.buffer("magalloc ".repeat(20_000)); // 180 kB

    @Test
    void theTransportPutsMagallocOnVertxConnections() throws Exception {
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
        Set<ByteBufAllocator> serverConnections = ConcurrentHashMap.newKeySet();
        Vertx vertx = VertxHttp.vertx(allocator);
        try {
            HttpServer server = vertx.createHttpServer()
                    .requestHandler(request -> {
                        // Vert.x internals, for the test only: the Netty channel behind the request.
                        serverConnections.add(((io.vertx.core.http.impl.HttpServerConnection) request.connection())
                                .channelHandlerContext().channel().config().getAllocator());
                        request.body().onSuccess(body -> request.response().end(body));
                    })
                    .listen(0, "127.0.0.1")
                    .await(10, TimeUnit.SECONDS);

            Buffer echoed = VertxHttp.post(vertx.createHttpClient(), "127.0.0.1", server.actualPort(), BODY)
                    .await(10, TimeUnit.SECONDS);

            assertThat(echoed.equals(BODY)).as("echoed body").isTrue();
            assertThat(serverConnections).containsExactly(allocator);
            assertThat(allocator.metric().usedDirectMemory()).isPositive();
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Why the transport is not a way to run Vert.x on magalloc (README, "In frameworks"): Vert.x copies received
     * data out of pooled buffers only when they come from Netty's own pooled allocators (it compares the
     * allocator's class) and hands any other buffer to the application without ever releasing it. With magalloc
     * every request body stays allocated. If this test fails, a Vert.x upgrade has changed that: update the README
     * and this example.
     */
    @Test
    void vertxNeverReleasesTheMagallocBuffersItReads() throws Exception {
        long growth = echoRoundTripsGrowth(MagazineByteBufAllocator.builder().build());

        assertThat(growth).isGreaterThan((long) PoolGrowth.ROUNDS * BODY.length());
    }

    /** The same transport with Netty's adaptive allocator: Vert.x copies and releases, memory levels off. */
    @Test
    void withNettysAdaptiveAllocatorTheSameTransportDoesNotGrow() throws Exception {
        long growth = echoRoundTripsGrowth(new AdaptiveByteBufAllocator());

        assertThat(growth).isLessThan(PoolGrowth.LEVELS_OFF);
    }

    private static long echoRoundTripsGrowth(ByteBufAllocator allocator) throws Exception {
        Vertx vertx = VertxHttp.vertx(allocator);
        try {
            HttpServer server = VertxHttp.echoServer(vertx, "127.0.0.1", 0).await(10, TimeUnit.SECONDS);
            HttpClient client = vertx.createHttpClient();
            return PoolGrowth.measure(((ByteBufAllocatorMetricProvider) allocator).metric(), () ->
                    assertThat(VertxHttp.post(client, "127.0.0.1", server.actualPort(), BODY)
                            .await(10, TimeUnit.SECONDS).equals(BODY)).as("echoed body").isTrue());
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }
}
