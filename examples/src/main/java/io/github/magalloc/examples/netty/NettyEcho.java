package io.github.magalloc.examples.netty;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * Plain Netty: a TCP echo server and a client, both allocating from magalloc.
 *
 * <p>{@code -Dio.netty.allocator.type} only chooses among Netty's own allocators, so {@code ByteBufAllocator.DEFAULT}
 * is never magalloc: each bootstrap names it with {@link ChannelOption#ALLOCATOR}. A server needs it twice, for
 * the listening channel ({@code option}) and for every accepted channel ({@code childOption}); the accepted
 * channels do the reading and writing.
 */
public final class NettyEcho {
    private NettyEcho() {
    }

    /** A server that writes back whatever it reads. Bind it with {@code server(...).bind(host, port)}. */
    public static ServerBootstrap server(EventLoopGroup group, ByteBufAllocator allocator) {
        return new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, allocator)
                .childOption(ChannelOption.ALLOCATOR, allocator)
                .childHandler(new EchoHandler());
    }

    /** A client whose channel allocates from {@code allocator}; connect it with {@code client(...).connect(address)}. */
    public static Bootstrap client(EventLoopGroup group, ByteBufAllocator allocator, ChannelHandler handler) {
        return new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, allocator)
                .handler(handler);
    }

    /** The usual choice: the shared instance, tuned by {@code magalloc.*} system properties. */
    public static ServerBootstrap server(EventLoopGroup group) {
        return server(group, MagazineByteBufAllocator.DEFAULT);
    }

    /** Writes every buffer it reads back; the write releases it once it has gone out. */
    @ChannelHandler.Sharable
    static final class EchoHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
