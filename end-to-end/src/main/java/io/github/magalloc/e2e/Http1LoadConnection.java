package io.github.magalloc.e2e;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;

/** An HTTP/1.1 {@link LoadConnection}: requests are pipelined, and answered in order. */
final class Http1LoadConnection extends LoadConnection {
    private final ArrayDeque<LoadRequest> pending = new ArrayDeque<>();

    Http1LoadConnection(LoadGenerator.Shared shared, long seed) {
        super(shared, seed);
    }

    @Override
    void addCodecs(ChannelHandlerContext ctx) {
        ctx.pipeline().addBefore(ctx.name(), null, new HttpClientCodec());
        ctx.pipeline().addBefore(ctx.name(), null, new HttpObjectAggregator(E2eServer.MAX_CONTENT));
    }

    @Override
    void sendMore(ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (pending.size() < shared.config.pipeline() && shared.tryAcquire()) {
            LoadRequest request = LoadRequest.next(shared.config, random);
            pending.add(request);
            ctx.write(request.toHttp(ctx.alloc(), shared.config.host()), ctx.voidPromise());
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        closeIfDone(ctx);
    }

    @Override
    int inFlight() {
        return pending.size();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (!(msg instanceof FullHttpResponse)) {
                throw new IllegalStateException("unexpected " + msg.getClass().getName());
            }
            long now = System.nanoTime();
            LoadRequest request = pending.poll();
            if (request == null) {
                shared.fail("response without a request");
                ctx.close();
                return;
            }
            answered(ctx, request, request.problemWith((FullHttpResponse) msg), now);
            if (ctx.channel().isActive()) {
                sendMore(ctx);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }
}
