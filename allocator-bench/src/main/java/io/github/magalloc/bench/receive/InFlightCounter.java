package io.github.magalloc.bench.receive;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * First in each server channel's pipeline: adds each inbound buffer's readable bytes to the channel's count and to
 * the server's bytes in flight. {@link #requestReleased()} takes the channel's bytes off again when its aggregated
 * request is released (clients send one request at a time and wait for its response, so a channel's bytes are those
 * of its one request), as does the channel's end.
 */
final class InFlightCounter extends ChannelInboundHandlerAdapter {
    private final ServerCounters counters;
    /** This channel's bytes in flight; used by its event loop only. */
    private long channelBytes;

    InFlightCounter(ServerCounters counters) {
        this.counters = counters;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf) {
            ByteBuf buf = (ByteBuf) msg;
            int bytes = buf.readableBytes();
            channelBytes += bytes;
            counters.inFlight.addAndGet(bytes);
            counters.readBuffer(buf);
        }
        ctx.fireChannelRead(msg);
    }

    /** The channel's request was released: its bytes are no longer in flight. */
    void requestReleased() {
        counters.inFlight.addAndGet(-channelBytes);
        channelBytes = 0;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // The aggregator releases a partial request when the channel ends.
        requestReleased();
        ctx.fireChannelInactive();
    }
}
