package io.github.magalloc.examples.vertx;

import io.netty.buffer.ByteBufAllocator;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.transport.Transport;

/**
 * Vert.x 5: an HTTP echo server and a client whose connections allocate from the given allocator, through
 * {@link MagallocTransport}. With magalloc this leaks (see there); it is here to show what stands in the way.
 */
public final class VertxHttp {
    private VertxHttp() {
    }

    /** A Vert.x instance on NIO whose TCP and HTTP servers and clients use {@code allocator}. */
    public static Vertx vertx(ByteBufAllocator allocator) {
        return Vertx.builder().withTransport(new MagallocTransport(Transport.NIO, allocator)).build();
    }

    /** Answers every request with its body. */
    public static Future<HttpServer> echoServer(Vertx vertx, String host, int port) {
        return vertx.createHttpServer()
                .requestHandler(request -> request.body().onSuccess(body -> request.response().end(body)))
                .listen(port, host);
    }

    /** Posts {@code body} and returns the response body. */
    public static Future<Buffer> post(HttpClient client, String host, int port, Buffer body) {
        // body() is asked for in the callback that receives the response: chained one step later, the response
        // can end before anyone reads it, and the body then comes back empty.
        return client.request(HttpMethod.POST, port, host, "/echo")
                .compose(request -> request.send(body).compose(response -> response.body()));
    }
}
