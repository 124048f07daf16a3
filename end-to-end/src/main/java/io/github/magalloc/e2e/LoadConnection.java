package io.github.magalloc.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.HdrHistogram.Histogram;

import java.util.ArrayDeque;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * One load-generator connection: keeps up to {@code pipeline} requests in flight and checks each response against the
 * request it answers (HTTP/1.1 answers in order). Everything here runs on the connection's event loop.
 */
final class LoadConnection extends SimpleChannelInboundHandler<FullHttpResponse> {
    private record Pending(boolean echo, int size, long seed, long startNanos) {
    }

    private final LoadGenerator.Shared shared;
    private final Random random;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    final Histogram latencyNanos = LoadGenerator.newHistogram();
    /** Completed once the connection is closed and fully accounted for. */
    final CompletableFuture<Void> done = new CompletableFuture<>();

    LoadConnection(LoadGenerator.Shared shared, long seed) {
        this.shared = shared;
        this.random = new Random(seed);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        sendMore(ctx);
    }

    private void sendMore(ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (pending.size() < shared.config.pipeline() && shared.tryAcquire()) {
            ctx.write(nextRequest(ctx), ctx.voidPromise());
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        if (pending.isEmpty()) {
            ctx.close(); // budget spent and everything answered
        }
    }

    private FullHttpRequest nextRequest(ChannelHandlerContext ctx) {
        LoadConfig c = shared.config;
        int size = c.sizes().get(random.nextInt(c.sizes().size())).next(random);
        long seed = random.nextLong();
        boolean echo = random.nextDouble() < c.echoFraction();
        FullHttpRequest req;
        if (echo) {
            ByteBuf body = ctx.alloc().buffer(size);
            Payload.fill(body, seed, size);
            req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/echo", body);
        } else {
            req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/gen", Unpooled.EMPTY_BUFFER);
            req.headers().setInt(HttpServerHandler.SIZE_HEADER, size);
            req.headers().set(HttpServerHandler.SEED_HEADER, seed);
        }
        req.headers().set(HttpHeaderNames.HOST, c.host());
        req.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, req.content().readableBytes());
        pending.add(new Pending(echo, size, seed, System.nanoTime()));
        return req;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse resp) {
        long now = System.nanoTime();
        Pending p = pending.poll();
        String problem;
        if (p == null) {
            problem = "response without a request";
        } else if (!resp.decoderResult().isSuccess()) {
            problem = "undecodable response: " + resp.decoderResult().cause();
        } else if (!resp.status().equals(HttpResponseStatus.OK)) {
            problem = "status " + resp.status();
        } else {
            problem = Payload.verify(resp.content(), p.seed(), p.size());
        }
        if (problem != null) {
            shared.fail((p != null && p.echo() ? "echo: " : "gen: ") + problem);
            ctx.close();
            return;
        }
        latencyNanos.recordValue(Math.min(now - p.startNanos(), latencyNanos.getHighestTrackableValue()));
        shared.verified.increment();
        sendMore(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!pending.isEmpty()) {
            shared.fail("connection closed with " + pending.size() + " requests unanswered");
            pending.clear();
        }
        done.complete(null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        shared.fail("client error: " + cause);
        ctx.close();
    }
}
