package io.github.magalloc.examples.reactor;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;

/**
 * Reactor Netty 1.3: an HTTP server and client on magalloc. Both builders take Netty channel options, so the
 * allocator is named as in plain Netty: {@code option} for the listening channel (and the client's connections),
 * {@code childOption} for the connections a server accepts. Reactor Netty also aggregates response bodies with
 * the client's {@code ALLOCATOR} option ({@code responseContent().aggregate()}).
 */
public final class ReactorNettyHttp {
    private ReactorNettyHttp() {
    }

    /** Answers every request with its own body. Start it with {@code bindNow()}. */
    public static HttpServer echoServer(ByteBufAllocator allocator) {
        return HttpServer.create()
                .option(ChannelOption.ALLOCATOR, allocator)
                .childOption(ChannelOption.ALLOCATOR, allocator)
                // retain(): the response sends the request's buffers on, and sending releases them once.
                .handle((request, response) -> response.send(request.receive().retain()));
    }

    public static HttpClient client(ByteBufAllocator allocator) {
        return HttpClient.create().option(ChannelOption.ALLOCATOR, allocator);
    }
}
