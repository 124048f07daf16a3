package io.github.magalloc.e2e;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;

import java.util.function.Supplier;

/**
 * The server's pipeline for one protocol, in plain text or over TLS:
 * <ul>
 * <li>HTTP/1.1: {@code HttpServerCodec}, {@code HttpObjectAggregator}, {@link HttpServerHandler};</li>
 * <li>HTTP/2: {@code Http2FrameCodec} and {@code Http2MultiplexHandler}; each stream is a child channel with
 * {@code Http2StreamFrameToHttpObjectCodec}, {@code HttpObjectAggregator} and the same {@link HttpServerHandler}, so
 * both protocols serve the same endpoints.</li>
 * </ul>
 * Over TLS an {@code SslHandler} comes first and the codecs follow once the handshake has agreed on the protocol by
 * ALPN. The {@link AllocatorCheck} sees what the transport reads, what TLS decrypts, what reaches a stream and each
 * aggregated request.
 */
final class HttpServerInitializer extends ChannelInitializer<Channel> {
    private final Protocol protocol;
    private final SslContext ssl;
    private final AllocatorCheck check;
    private final Supplier<ChannelHandler> handler;
    private final ChannelGroup openChannels;

    /**
     * @param ssl     null for plain text (h2c with prior knowledge for HTTP/2)
     * @param handler a new {@link HttpServerHandler} per connection (per stream for HTTP/2)
     */
    HttpServerInitializer(Protocol protocol, SslContext ssl, AllocatorCheck check, Supplier<ChannelHandler> handler,
                          ChannelGroup openChannels) {
        this.protocol = protocol;
        this.ssl = ssl;
        this.check = check;
        this.handler = handler;
        this.openChannels = openChannels;
    }

    @Override
    protected void initChannel(Channel ch) {
        openChannels.add(ch);
        ChannelPipeline p = ch.pipeline();
        p.addLast("check-socket", check);
        if (ssl == null) {
            addCodecs(p);
            return;
        }
        p.addLast("tls", ssl.newHandler(ch.alloc()));
        p.addLast("check-tls", check);
        // No ALPN from the client means HTTP/1.1 (RFC 7301), which an HTTP/2 server refuses.
        p.addLast(new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
            @Override
            protected void configurePipeline(ChannelHandlerContext ctx, String negotiated) {
                if (!negotiated.equals(protocol.alpnId())) {
                    throw new IllegalStateException("ALPN: client speaks " + negotiated + ", server "
                            + protocol.alpnId());
                }
                addCodecs(ctx.pipeline());
            }
        });
    }

    private void addCodecs(ChannelPipeline p) {
        if (protocol == Protocol.HTTP1) {
            p.addLast(new HttpServerCodec(), new HttpObjectAggregator(E2eServer.MAX_CONTENT));
            p.addLast("check-request", check);
            p.addLast(handler.get());
            return;
        }
        p.addLast(Http2FrameCodecBuilder.forServer().build());
        p.addLast(new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel stream) {
                // A stream channel has a configuration of its own, whose allocator is ByteBufAllocator.DEFAULT:
                // without this, aggregated requests and generated responses would not come from the allocator
                // under test (the check below finds every aggregated request foreign).
                stream.config().setAllocator(stream.parent().alloc());
                stream.pipeline().addLast("check-stream", check);
                stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true),
                        new HttpObjectAggregator(E2eServer.MAX_CONTENT));
                stream.pipeline().addLast("check-request", check);
                stream.pipeline().addLast(handler.get());
            }
        }));
    }
}
