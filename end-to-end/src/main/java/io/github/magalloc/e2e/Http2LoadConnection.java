package io.github.magalloc.e2e;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;

/**
 * An HTTP/2 {@link LoadConnection}: each request on a stream of its own (a child channel of the connection, on the
 * same event loop), up to {@code pipeline} streams at once; answers come in any order.
 */
final class Http2LoadConnection extends LoadConnection {
    private int inFlight;
    /** True while {@link #sendMore} writes: it flushes them all at once at the end, as HTTP/1.1 pipelining does. */
    private boolean batching;

    Http2LoadConnection(LoadGenerator.Shared shared, long seed) {
        super(shared, seed);
    }

    @Override
    void addCodecs(ChannelHandlerContext ctx) {
        ctx.pipeline().addBefore(ctx.name(), null, Http2FrameCodecBuilder.forClient()
                .initialSettings(Http2Settings.defaultSettings().pushEnabled(false)).build());
        // Push is off, so the server opens no stream; should one come, it is closed.
        ctx.pipeline().addBefore(ctx.name(), null, new Http2MultiplexHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel pushed) {
                pushed.close();
            }
        }));
    }

    @Override
    void sendMore(ChannelHandlerContext ctx) {
        batching = true;
        while (inFlight < shared.config.pipeline() && shared.tryAcquire()) {
            LoadRequest request = LoadRequest.next(shared.config, random);
            inFlight++;
            new Http2StreamChannelBootstrap(ctx.channel())
                    .handler(new ChannelInitializer<Http2StreamChannel>() {
                        @Override
                        protected void initChannel(Http2StreamChannel stream) {
                            // A stream's own configuration would allocate from ByteBufAllocator.DEFAULT.
                            stream.config().setAllocator(stream.parent().alloc());
                            stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false),
                                    new HttpObjectAggregator(E2eServer.MAX_CONTENT), new Answer(ctx, request));
                        }
                    })
                    .open()
                    .addListener((Future<Http2StreamChannel> opened) -> send(ctx, opened, request));
        }
        batching = false;
        ctx.flush();
        closeIfDone(ctx);
    }

    private void send(ChannelHandlerContext ctx, Future<Http2StreamChannel> opened, LoadRequest request) {
        if (!opened.isSuccess()) {
            shared.fail("cannot open a stream: " + opened.cause());
            ctx.close();
            return;
        }
        Http2StreamChannel stream = opened.getNow();
        // A stream opened after the batch (not on this event loop's stack) flushes its own request.
        (batching ? stream.write(request.toHttp(stream.alloc(), shared.config.host()))
                : stream.writeAndFlush(request.toHttp(stream.alloc(), shared.config.host())))
                .addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        shared.fail("cannot send on a stream: " + f.cause());
                        ctx.close();
                    }
                });
    }

    @Override
    int inFlight() {
        return inFlight;
    }

    /** The end of one stream's pipeline: its one response, or its end without one. */
    private final class Answer extends ChannelInboundHandlerAdapter {
        private final ChannelHandlerContext connection;
        private final LoadRequest request;
        private boolean answered;

        Answer(ChannelHandlerContext connection, LoadRequest request) {
            this.connection = connection;
            this.request = request;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                long now = System.nanoTime();
                if (answered) {
                    throw new IllegalStateException("a second response on one stream");
                }
                answered = true;
                inFlight--;
                String problem = msg instanceof FullHttpResponse ? request.problemWith((FullHttpResponse) msg)
                        : "unexpected " + msg.getClass().getName();
                answered(connection, request, problem, now);
                if (connection.channel().isActive()) {
                    sendMore(connection);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!answered) {
                answered = true;
                inFlight--;
                shared.fail("stream closed without an answer");
                connection.close();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            shared.fail("stream error: " + cause);
            connection.close();
        }
    }
}
