package io.github.magalloc.examples.reactor;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.examples.PoolGrowth;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

class ReactorNettyHttpTest {
    private static final String BODY = "magalloc ".repeat(20_000); // 180 kB: several reads and response chunks

    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final Set<ByteBufAllocator> serverConnections = ConcurrentHashMap.newKeySet();
    private final Set<ByteBufAllocator> clientConnections = ConcurrentHashMap.newKeySet();
    private DisposableServer server;
    private HttpClient client;

    @BeforeEach
    void start() {
        server = ReactorNettyHttp.echoServer(allocator)
                .host("127.0.0.1").port(0)
                .doOnConnection(connection -> serverConnections.add(connection.channel().config().getAllocator()))
                .bindNow(Duration.ofSeconds(10));
        client = ReactorNettyHttp.client(allocator)
                .doOnConnected(connection -> clientConnections.add(connection.channel().config().getAllocator()));
    }

    @AfterEach
    void stop() {
        server.disposeNow(Duration.ofSeconds(10));
    }

    private String post(String body) {
        return client.post()
                .uri("http://127.0.0.1:" + server.port() + "/echo")
                .send(ByteBufFlux.fromString(Mono.just(body)))
                .responseContent().aggregate().asString()
                .block(Duration.ofSeconds(10));
    }

    @Test
    void httpRoundTripAllocatesFromMagalloc() {
        assertThat(BODY.equals(post(BODY))).as("echoed body").isTrue();
        assertThat(server.channel().config().getAllocator()).isSameAs(allocator);
        assertThat(serverConnections).containsExactly(allocator);
        assertThat(clientConnections).containsExactly(allocator);
        assertThat(allocator.metric().usedDirectMemory()).isPositive();
    }

    @Test
    void everyBufferGoesBackToThePool() throws Exception {
        long growth = PoolGrowth.measure(allocator.metric(), () -> assertThat(BODY.equals(post(BODY))).as("echoed body").isTrue());

        assertThat(growth).isLessThan(PoolGrowth.LEVELS_OFF);
    }
}
