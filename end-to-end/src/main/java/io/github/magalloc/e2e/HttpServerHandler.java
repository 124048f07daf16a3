package io.github.magalloc.e2e;

import io.github.magalloc.workload.SizeDistribution;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * POST /echo answers with the request body itself; GET /gen answers with {@link Payload} for the x-size and x-seed
 * headers (or the query {@code ?size=N&seed=S}, for clients such as h2load that send the same headers with every
 * request), in a buffer from the channel's allocator; GET /stats answers with {@link ServerStats}. Responses are
 * written per request and flushed per read batch, so pipelined requests share a flush. The same handler serves
 * HTTP/1.1 connections and HTTP/2 streams ({@link HttpServerInitializer}).
 */
final class HttpServerHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    static final String SIZE_HEADER = "x-size";
    static final String SEED_HEADER = "x-seed";

    private final LongAdder served;
    private final Supplier<ServerStats> stats;

    HttpServerHandler(LongAdder served, Supplier<ServerStats> stats) {
        this.served = served;
        this.stats = stats;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        FullHttpResponse resp;
        int query = req.uri().indexOf('?');
        String path = query < 0 ? req.uri() : req.uri().substring(0, query);
        if (req.method() == HttpMethod.POST && path.equals("/echo")) {
            resp = ok(req.content().retain()); // the request's own buffer goes back out
            served.increment();
        } else if (req.method() == HttpMethod.GET && path.equals("/gen")) {
            resp = generate(ctx, req);
            served.increment();
        } else if (req.method() == HttpMethod.GET && path.equals("/stats")) {
            resp = ok(ByteBufUtil.writeAscii(ctx.alloc(), stats.get().toText()));
        } else {
            resp = status(ctx, HttpResponseStatus.NOT_FOUND, "no route " + req.method() + " " + path);
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        if (!keepAlive) {
            resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.write(resp, ctx.voidPromise());
        }
    }

    private static FullHttpResponse generate(ChannelHandlerContext ctx, FullHttpRequest req) {
        int size;
        long seed;
        QueryStringDecoder query = req.uri().indexOf('?') < 0 ? null : new QueryStringDecoder(req.uri());
        try {
            size = Integer.parseInt(parameter(req, query, SIZE_HEADER, "size"));
            seed = Long.parseLong(parameter(req, query, SEED_HEADER, "seed"));
        } catch (RuntimeException e) {
            return status(ctx, HttpResponseStatus.BAD_REQUEST, "need numeric x-size and x-seed, or ?size=&seed=");
        }
        if (size < 0 || size > SizeDistribution.MAX_SIZE) {
            return status(ctx, HttpResponseStatus.BAD_REQUEST, "x-size out of range");
        }
        ByteBuf body = ctx.alloc().buffer(size);
        Payload.fill(body, seed, size);
        return ok(body);
    }

    /** The header's value, or else the query parameter's; null if neither is there. */
    private static String parameter(FullHttpRequest req, QueryStringDecoder query, String header, String name) {
        String value = req.headers().get(header);
        if (value != null || query == null) {
            return value;
        }
        List<String> values = query.parameters().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    private static FullHttpResponse ok(ByteBuf body) {
        FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
        resp.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return resp;
    }

    private static FullHttpResponse status(ChannelHandlerContext ctx, HttpResponseStatus status, String text) {
        FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                ByteBufUtil.writeAscii(ctx.alloc(), text));
        resp.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, resp.content().readableBytes());
        return resp;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A client that leaves mid-request (h2load does at the end of its time) leaves I/O errors and unfinished
        // requests on each of its open streams: not worth a line each.
        if (!(cause instanceof IOException || cause instanceof PrematureChannelClosureException)) {
            System.err.println("server: closing " + ctx.channel() + " after " + cause);
        }
        ctx.close();
    }
}
