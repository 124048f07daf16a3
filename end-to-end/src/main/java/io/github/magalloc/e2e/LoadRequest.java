package io.github.magalloc.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.util.random.RandomGenerator;

/**
 * One request of the load, POST /echo or GET /gen, remembered as (size, seed) so that its response can be checked
 * byte for byte without a copy of the body ({@link Payload}).
 */
record LoadRequest(boolean echo, int size, long seed, long startNanos) {

    /** The next request of {@code config}'s mix, stamped now. */
    static LoadRequest next(LoadConfig config, RandomGenerator random) {
        int size = config.sizes().get(random.nextInt(config.sizes().size())).next(random);
        long seed = random.nextLong();
        boolean echo = random.nextDouble() < config.echoFraction();
        return new LoadRequest(echo, size, seed, System.nanoTime());
    }

    /** The HTTP request; an echo body comes from {@code alloc}. */
    FullHttpRequest toHttp(ByteBufAllocator alloc, String host) {
        FullHttpRequest req;
        if (echo) {
            ByteBuf body = alloc.buffer(size);
            Payload.fill(body, seed, size);
            req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/echo", body);
        } else {
            req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/gen", Unpooled.EMPTY_BUFFER);
            req.headers().setInt(HttpServerHandler.SIZE_HEADER, size);
            req.headers().set(HttpServerHandler.SEED_HEADER, seed);
        }
        req.headers().set(HttpHeaderNames.HOST, host);
        req.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, req.content().readableBytes());
        return req;
    }

    /** Null when {@code resp} is exactly this request's answer, else what is wrong with it. */
    String problemWith(FullHttpResponse resp) {
        String problem;
        if (!resp.decoderResult().isSuccess()) {
            problem = "undecodable response: " + resp.decoderResult().cause();
        } else if (!resp.status().equals(HttpResponseStatus.OK)) {
            problem = "status " + resp.status();
        } else {
            problem = Payload.verify(resp.content(), seed, size);
        }
        return problem == null ? null : (echo ? "echo: " : "gen: ") + problem;
    }
}
