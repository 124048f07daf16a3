package io.github.magalloc.bench.receive;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;

/**
 * Last in each server channel's pipeline: counts each aggregated request (complete when its body has
 * {@link ReceiveClients#BODY_BYTES} bytes), releases it, takes its bytes off the bytes in flight, and answers
 * {@code 200 OK} with a tiny body, keeping the connection open (HTTP/1.1). Counts every exception that reaches the
 * end of the pipeline, {@link OutOfMemoryError}s apart, and closes the channel on it, as Netty does when a read fails;
 * a request cut short by its channel's end is not counted.
 */
final class RequestHandler extends ChannelInboundHandlerAdapter {
    private static final byte[] OK_BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BAD_BODY = "incomplete body\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerCounters counters;
    private final InFlightCounter inFlight;

    RequestHandler(ServerCounters counters, InFlightCounter inFlight) {
        this.counters = counters;
        this.inFlight = inFlight;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        FullHttpRequest request = (FullHttpRequest) msg;
        boolean complete;
        try {
            complete = request.decoderResult().isSuccess()
                && request.content().readableBytes() == ReceiveClients.BODY_BYTES;
        } finally {
            request.release();
            inFlight.requestReleased();
        }
        try {
            counters.request(complete);
            byte[] body = complete ? OK_BODY : BAD_BODY;
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                complete ? HttpResponseStatus.OK : HttpResponseStatus.BAD_REQUEST, Unpooled.wrappedBuffer(body));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            ctx.writeAndFlush(response, ctx.voidPromise());
        } catch (OutOfMemoryError e) {
            counters.error(e);
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // The aggregator's word for a channel that ended mid-request (closed after an OutOfMemoryError, say): the
        // end itself is no error of its own, and the clients count the connections they open again.
        if (!(cause instanceof PrematureChannelClosureException)) {
            counters.error(cause);
        }
        ctx.close();
    }
}
