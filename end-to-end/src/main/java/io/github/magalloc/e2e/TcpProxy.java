package io.github.magalloc.e2e;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;

import java.net.SocketAddress;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TCP proxy, client -> proxy -> backend, that can terminate TLS: with a front-end {@code SslContext} it decrypts what
 * the client sends and encrypts what the backend answers, and talks to the backend in plain text. It forwards bytes
 * and does not parse HTTP, so the client and the backend speak the same protocol (HTTP/2 over TLS in front is h2c with
 * prior knowledge behind). Front-end connections live on {@code frontGroup}, their backend connections on the distinct
 * {@code backendGroup}, so every buffer read on one side is written and released by the other side's event loop: the
 * cross-thread release case, through TLS too (buffers decrypted in front are released behind, and buffers read behind
 * are encrypted and released in front). Reads are driven by write completion (auto-read off), which bounds what is in
 * flight per connection.
 */
public final class TcpProxy {
    private final LongAdder crossThread = new LongAdder();
    private final LongAdder sameThread = new LongAdder();
    private final AllocatorCheck check;
    /** Set by {@link #start} once bound, before it returns. */
    private Channel serverChannel;

    private TcpProxy(AllocatorCheck check) {
        this.check = check;
    }

    /**
     * @param frontTls null for plain text in front too
     * @param check    sees every buffer read in front (and decrypted, with TLS) and behind
     */
    public static TcpProxy start(Transport transport, ByteBufAllocator alloc, EventLoopGroup frontGroup,
                                 EventLoopGroup backendGroup, SocketAddress bind, SocketAddress backend,
                                 ChannelGroup openChannels, SslContext frontTls, AllocatorCheck check)
            throws InterruptedException {
        if (frontGroup == backendGroup) {
            throw new IllegalArgumentException("front and backend groups must differ for cross-thread release");
        }
        TcpProxy proxy = new TcpProxy(check);
        ServerBootstrap sb = new ServerBootstrap()
                .group(frontGroup)
                .channel(transport.serverChannel())
                .option(ChannelOption.ALLOCATOR, alloc)
                .childOption(ChannelOption.ALLOCATOR, alloc)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        openChannels.add(ch);
                        Bootstrap backendBootstrap = new Bootstrap()
                                .group(backendGroup)
                                .channel(transport.channel())
                                .option(ChannelOption.ALLOCATOR, alloc)
                                .option(ChannelOption.TCP_NODELAY, true)
                                .option(ChannelOption.AUTO_READ, false);
                        ch.pipeline().addLast("check-socket", check);
                        if (frontTls != null) {
                            // SslHandler asks for the reads its handshake needs even with auto-read off.
                            ch.pipeline().addLast("tls", frontTls.newHandler(ch.alloc()));
                            ch.pipeline().addLast("check-tls", check);
                        }
                        ch.pipeline().addLast(proxy.new Frontend(backendBootstrap, backend));
                    }
                });
        proxy.serverChannel = sb.bind(bind).sync().channel();
        return proxy;
    }

    public SocketAddress localAddress() {
        return serverChannel.localAddress();
    }

    /** Forwarded buffers that were released (refCnt 0) by an event loop other than the one that read them. */
    public long crossThreadReleases() {
        return crossThread.sum();
    }

    /** Forwarded buffers not seen released on another thread when their write completed; expected to stay 0. */
    public long sameThreadReleases() {
        return sameThread.sum();
    }

    public void close() {
        serverChannel.close().syncUninterruptibly();
    }

    /** Writes msg to target; once written, counts which thread released it and asks source for the next read. */
    private void forward(Object msg, Channel source, Channel target) {
        Thread reader = Thread.currentThread();
        target.writeAndFlush(msg).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                closeOnFlush(source);
                f.channel().close();
                return;
            }
            // A successful write means the target's transport released the buffer on its own event loop, the
            // thread running this listener. (Reading msg.refCnt() here would be a use after release: pooled
            // allocators recycle buffer objects, so the object may already serve another allocation.)
            if (Thread.currentThread() != reader) {
                crossThread.increment();
            } else {
                sameThread.increment();
            }
            source.read();
        });
    }

    private static void closeOnFlush(Channel ch) {
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private final class Frontend extends ChannelInboundHandlerAdapter {
        private final Bootstrap backendBootstrap;
        private final SocketAddress backend;
        private Channel outbound;

        Frontend(Bootstrap backendBootstrap, SocketAddress backend) {
            this.backendBootstrap = backendBootstrap;
            this.backend = backend;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Channel inbound = ctx.channel();
            ChannelFuture f = backendBootstrap.clone()
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast("check-socket", check);
                            ch.pipeline().addLast(new Backend(inbound));
                        }
                    })
                    .connect(backend);
            outbound = f.channel();
            f.addListener((ChannelFutureListener) cf -> {
                if (cf.isSuccess()) {
                    inbound.read();
                } else {
                    inbound.close();
                }
            });
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (outbound != null && outbound.isActive()) {
                forward(msg, ctx.channel(), outbound);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (outbound != null && !outbound.isActive()) {
                outbound.close(); // still connecting: abort, so no backend connection outlives its client
            }
            closeOnFlush(outbound);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("proxy: closing " + ctx.channel() + " after " + cause);
            closeOnFlush(ctx.channel());
        }
    }

    private final class Backend extends ChannelInboundHandlerAdapter {
        private final Channel inbound;

        Backend(Channel inbound) {
            this.inbound = inbound;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.read();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            forward(msg, ctx.channel(), inbound);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            closeOnFlush(inbound);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("proxy backend: closing " + ctx.channel() + " after " + cause);
            closeOnFlush(ctx.channel());
        }
    }
}
