package io.github.magalloc.receive;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads over loopback, as a server makes them: a client writes 1,460-byte segments a millisecond apart (a slow
 * client), the server's NIO channel reads them with magalloc and the receive allocator under test. Every buffer the
 * pipeline gets holds the bytes sent, in order, and none reserves more than its bytes rounded up to a size class
 * (or twice them: a read that fills more than half its buffer keeps it); the counts add up.
 */
class LoopbackReadsTest {
    private static final int SEGMENT = 1460;
    private static final int SEGMENTS = 60;

    private final MagazineByteBufAllocator magalloc = MagazineByteBufAllocator.builder().build();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    /** What the server's pipeline got: each buffer's bytes, capacity and reservation, in order. */
    private final List<int[]> reads = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void rightSizingHandsThePipelineBuffersOfAboutTheirBytes() throws Exception {
        RightSizingRecvByteBufAllocator receive = new RightSizingRecvByteBufAllocator();
        byte[] sent = run(receive);
        assertThat(received.toByteArray()).isEqualTo(sent);
        assertTight();
        ReceiveMetric metric = receive.metric();
        assertThat(metric.reads()).isEqualTo(reads.size());
        assertThat(metric.bytesRead()).isEqualTo(sent.length);
    }

    @Test
    void aFixed512KiBAllocatorWithCuttingToo() throws Exception {
        RecvByteBufAllocator receive = ReadBufferCutting.wrap(new FixedRecvByteBufAllocator(512 * 1024));
        byte[] sent = run(receive);
        assertThat(received.toByteArray()).isEqualTo(sent);
        assertTight();
        ReceiveMetric metric = ((ReceiveMetricProvider) receive).metric();
        // The channel also allocates for the reads that find nothing (and frees those buffers at once).
        assertThat(metric.capacityAllocated()).isGreaterThanOrEqualTo(512L * 1024 * reads.size());
        assertThat(metric.capacityCutBack()).as("every read cut to its bytes")
            .isEqualTo(512L * 1024 * reads.size() - sent.length);
    }

    /** Each buffer reserved at most its bytes' size class, or twice its bytes when it was kept whole. */
    private void assertTight() {
        assertThat(reads).isNotEmpty();
        for (int[] read : reads) {
            int bytes = read[0];
            int capacity = read[1];
            int reserved = read[2];
            assertThat(capacity).as("capacity of a read of %d bytes", bytes).isLessThanOrEqualTo(2 * bytes);
            assertThat(reserved).as("reserved for a read of %d bytes", bytes)
                .isLessThanOrEqualTo(Math.max(2 * bytes, bytes + bytes / 4 + 16));
        }
    }

    private byte[] run(RecvByteBufAllocator receive) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        byte[] sent = new byte[SEGMENT * SEGMENTS];
        new Random(5).nextBytes(sent);
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.ALLOCATOR, magalloc)
            .childOption(ChannelOption.RECVBUF_ALLOCATOR, receive)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf buf = (ByteBuf) msg;
                    reads.add(new int[] {buf.readableBytes(), buf.capacity(), reserved(buf)});
                    byte[] bytes = new byte[buf.readableBytes()];
                    buf.readBytes(bytes).release();
                    synchronized (received) {
                        received.writeBytes(bytes);
                    }
                    if (received.size() == sent.length) {
                        done.complete(null);
                    }
                }
            }).bind("127.0.0.1", 0).sync().channel();
        Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(new ChannelInboundHandlerAdapter())
            .connect(server.localAddress()).sync().channel();
        for (int i = 0; i < SEGMENTS; i++) {
            client.writeAndFlush(Unpooled.wrappedBuffer(Arrays.copyOfRange(sent, i * SEGMENT, (i + 1) * SEGMENT)));
            Thread.sleep(1);
        }
        done.get(30, TimeUnit.SECONDS);
        client.close().sync();
        server.close().sync();
        return sent;
    }

    private static int reserved(ByteBuf buffer) {
        ByteBuf b = buffer;
        while (!(b instanceof MagByteBuf)) {
            b = b.unwrap();
        }
        return ((MagByteBuf) b).reservedBytes();
    }
}
