package io.github.magalloc.examples.netty;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.examples.PoolGrowth;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class NettyEchoTest {
    private static final int SIZE = 200_000;

    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    /** Which allocator each accepted channel has, and which allocated the buffers the server read. */
    private final Set<ByteBufAllocator> acceptedChannels = ConcurrentHashMap.newKeySet();
    private final Set<ByteBufAllocator> serverReadFrom = ConcurrentHashMap.newKeySet();
    private final Set<ByteBufAllocator> clientReadFrom = ConcurrentHashMap.newKeySet();
    private final byte[] payload = new byte[SIZE];
    private EventLoopGroup group;
    private Channel server;

    @BeforeEach
    void startServer() throws InterruptedException {
        new Random(12).nextBytes(payload);
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        server = NettyEcho.server(group, allocator)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        acceptedChannels.add(ch.config().getAllocator());
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                serverReadFrom.add(((ByteBuf) msg).alloc());
                                ctx.fireChannelRead(msg);
                            }
                        }, new NettyEcho.EchoHandler());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    @AfterEach
    void stop() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void echoesOverLoopbackWithMagallocOnBothSides() throws Exception {
        Collector collector = new Collector(SIZE);
        Channel client = NettyEcho.client(group, allocator, collector).connect(server.localAddress()).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(payload)).sync();

        assertThat(Arrays.equals(collector.done.get(10, TimeUnit.SECONDS), payload)).as("echoed bytes").isTrue();
        assertThat(server.config().getAllocator()).isSameAs(allocator);
        assertThat(client.config().getAllocator()).isSameAs(allocator);
        assertThat(acceptedChannels).containsExactly(allocator);
        assertThat(serverReadFrom).containsExactly(allocator);
        assertThat(clientReadFrom).containsExactly(allocator);
        assertThat(allocator.metric().usedDirectMemory()).isPositive();
        client.close().sync();
    }

    @Test
    void everyBufferGoesBackToThePool() throws Exception {
        long growth = PoolGrowth.measure(allocator.metric(), () -> {
            Collector collector = new Collector(SIZE);
            Channel client = NettyEcho.client(group, allocator, collector)
                    .connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(payload)).sync();
            assertThat(Arrays.equals(collector.done.get(10, TimeUnit.SECONDS), payload)).as("echoed bytes").isTrue();
            client.close().sync();
        });

        assertThat(growth).isLessThan(PoolGrowth.LEVELS_OFF);
    }

    /** Gathers the echoed bytes and releases every buffer it reads. */
    private final class Collector extends ChannelInboundHandlerAdapter {
        final CompletableFuture<byte[]> done = new CompletableFuture<>();
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private final int expected;

        Collector(int expected) {
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                clientReadFrom.add(buf.alloc());
                byte[] bytes = new byte[buf.readableBytes()];
                buf.readBytes(bytes);
                received.writeBytes(bytes);
            } finally {
                buf.release();
            }
            if (received.size() >= expected) {
                done.complete(received.toByteArray());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }
    }
}
