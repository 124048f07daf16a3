package io.github.magalloc.bench.receive;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * What Elasticsearch's {@code NettyByteBufSizer} does before its HTTP codec: every inbound buffer of 1 KiB or more is
 * cut to its readable bytes ({@code buf.discardReadBytes().capacity(buf.readableBytes())}), so that the slices the
 * aggregated request keeps do not pin the whole read buffer.
 */
final class ElasticsearchTrim extends ChannelInboundHandlerAdapter {
    static final ElasticsearchTrim INSTANCE = new ElasticsearchTrim();
    private static final int MIN_CAPACITY = 1024;

    private ElasticsearchTrim() {
    }

    /**
     * Stateless, so one instance serves every channel. Said here rather than with {@code @Sharable}: the JMH
     * annotation processor runs over this module and javac would warn that no processor claimed the annotation.
     */
    @Override
    public boolean isSharable() {
        return true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf && ((ByteBuf) msg).capacity() >= MIN_CAPACITY) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                buf.discardReadBytes().capacity(buf.readableBytes());
            } catch (Throwable t) {
                buf.release();
                throw t;
            }
        }
        ctx.fireChannelRead(msg);
    }
}
