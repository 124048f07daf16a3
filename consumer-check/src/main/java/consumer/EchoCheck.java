package consumer;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A user's first program with magalloc, built outside its reactor: a plain Netty TCP echo server and client over
 * loopback, both with {@code MagazineByteBufAllocator.DEFAULT} as {@link ChannelOption#ALLOCATOR}. Sends 200 messages
 * of seeded random sizes (1 B to 64 KiB), checks that every byte comes back, that every buffer the server and the
 * client read came from magalloc; exits with 1 (and says why) otherwise. Prints where magalloc's classes came from,
 * which is the local repository the check installed them into.
 */
public final class EchoCheck {
    private static final int MESSAGES = 200;
    private static final long SEED = 42;

    private EchoCheck() {
    }

    public static void main(String[] args) throws Exception {
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.DEFAULT;
        AtomicBoolean foreignBuffer = new AtomicBoolean();
        Random random = new Random(SEED);
        int[] sizes = new int[MESSAGES];
        int total = 0;
        for (int i = 0; i < MESSAGES; i++) {
            sizes[i] = 1 + random.nextInt(64 * 1024);
            total += sizes[i];
        }
        byte[] sent = new byte[total];
        random.nextBytes(sent);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, allocator)
                .childOption(ChannelOption.ALLOCATOR, allocator)
                .childHandler(new Echo(allocator, foreignBuffer))
                .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            Receiver receiver = new Receiver(allocator, foreignBuffer, sent.length);
            Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, allocator)
                .handler(receiver)
                .connect((InetSocketAddress) server.localAddress()).sync().channel();
            for (int i = 0, offset = 0; i < MESSAGES; offset += sizes[i], i++) {
                client.write(client.alloc().buffer(sizes[i]).writeBytes(sent, offset, sizes[i]));
            }
            client.flush();
            byte[] received = receiver.all.get(60, TimeUnit.SECONDS);
            client.close().sync();
            server.close().sync();
            check(Arrays.equals(sent, received), "the bytes echoed differ from the bytes sent");
            check(!foreignBuffer.get(), "a channel read a buffer that magalloc did not allocate");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        System.out.printf("consumer check: %d bytes in %d messages echoed through magalloc from %s%n", sent.length,
            MESSAGES, MagazineByteBufAllocator.class.getProtectionDomain().getCodeSource().getLocation());
    }

    private static void check(boolean ok, String problem) {
        if (!ok) {
            System.err.println("consumer check failed: " + problem);
            System.exit(1);
        }
    }

    /** Writes back what it reads; notes any buffer read that magalloc did not allocate. */
    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        private final MagazineByteBufAllocator allocator;
        private final AtomicBoolean foreignBuffer;

        Echo(MagazineByteBufAllocator allocator, AtomicBoolean foreignBuffer) {
            this.allocator = allocator;
            this.foreignBuffer = foreignBuffer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (((ByteBuf) msg).alloc() != allocator) {
                foreignBuffer.set(true);
            }
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Collects the echoed bytes until all have come back. */
    private static final class Receiver extends ChannelInboundHandlerAdapter {
        final CompletableFuture<byte[]> all = new CompletableFuture<>();
        private final MagazineByteBufAllocator allocator;
        private final AtomicBoolean foreignBuffer;
        private final byte[] received;
        private int count;

        Receiver(MagazineByteBufAllocator allocator, AtomicBoolean foreignBuffer, int expected) {
            this.allocator = allocator;
            this.foreignBuffer = foreignBuffer;
            this.received = new byte[expected];
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                if (buf.alloc() != allocator) {
                    foreignBuffer.set(true);
                }
                int n = Math.min(buf.readableBytes(), received.length - count);
                buf.readBytes(received, count, n);
                count += n;
                if (count == received.length) {
                    all.complete(received);
                }
            } finally {
                buf.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            all.completeExceptionally(cause);
            ctx.close();
        }
    }
}
