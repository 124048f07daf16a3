package io.github.magalloc.e2e;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import org.HdrHistogram.Histogram;

import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * One load-generator connection, the last handler of its pipeline: adds its protocol's codecs in front of itself and
 * starts sending, at once in plain text, over TLS once the handshake is done and ALPN has agreed on the protocol. It
 * keeps up to {@code pipeline} requests in flight, checks every response against its request, records its latency,
 * and closes when the budget is spent and everything is answered. Everything here runs on the connection's event loop.
 */
abstract class LoadConnection extends ChannelInboundHandlerAdapter {
    final LoadGenerator.Shared shared;
    final Random random;
    final Histogram latencyNanos = LoadGenerator.newHistogram();
    /** Completed once the connection is closed and fully accounted for. */
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private boolean started;

    LoadConnection(LoadGenerator.Shared shared, long seed) {
        this.shared = shared;
        this.random = new Random(seed);
    }

    /** Adds the protocol's codecs just before this handler. */
    abstract void addCodecs(ChannelHandlerContext ctx);

    /** Sends requests while fewer than {@code pipeline} are in flight and the budget allows. */
    abstract void sendMore(ChannelHandlerContext ctx);

    /** Requests sent and not answered. */
    abstract int inFlight();

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.pipeline().get(SslHandler.class) == null) {
            addCodecs(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (ctx.pipeline().get(SslHandler.class) == null) {
            start(ctx);
        }
        super.channelActive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent) {
            SslHandshakeCompletionEvent handshake = (SslHandshakeCompletionEvent) evt;
            String expected = shared.config.protocol().alpnId();
            String negotiated = ctx.pipeline().get(SslHandler.class).applicationProtocol();
            if (!handshake.isSuccess()) {
                shared.fail("TLS handshake: " + handshake.cause());
                ctx.close();
            } else if (!expected.equals(negotiated)) {
                shared.fail("ALPN: asked for " + expected + ", server chose " + negotiated);
                ctx.close();
            } else {
                addCodecs(ctx);
                start(ctx);
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    private void start(ChannelHandlerContext ctx) {
        started = true;
        sendMore(ctx);
    }

    /** Records a verified response, or counts the failure and closes the connection. */
    void answered(ChannelHandlerContext ctx, LoadRequest request, String problem, long nowNanos) {
        if (problem != null) {
            shared.fail(problem);
            ctx.close();
            return;
        }
        latencyNanos.recordValue(Math.min(nowNanos - request.startNanos(), latencyNanos.getHighestTrackableValue()));
        shared.verified.increment();
    }

    /** Closes the connection once the budget is spent and nothing is in flight. */
    void closeIfDone(ChannelHandlerContext ctx) {
        if (inFlight() == 0) {
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (!started) {
            shared.fail("connection closed before it could send");
        } else if (inFlight() > 0) {
            shared.fail("connection closed with " + inFlight() + " requests unanswered");
        }
        done.complete(null);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        shared.fail("client error: " + cause);
        ctx.close();
    }
}
