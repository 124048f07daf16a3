package io.github.magalloc.examples.vertx;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.TcpConfig;
import io.vertx.core.transport.Transport;

import java.util.concurrent.ThreadFactory;

/**
 * Vert.x 5 has no setting for the Netty allocator: its TCP and HTTP servers and clients set
 * {@code ChannelOption.ALLOCATOR} to Netty's {@code ByteBufAllocator.DEFAULT} themselves. The closest supported
 * hook is the transport ({@code Vertx.builder().withTransport(...)}): Vert.x asks it to {@code configure} every
 * bootstrap after setting its own options, so a transport that wraps NIO (or a native one) and sets the
 * allocator there wins.
 *
 * <p><b>Not for production (Vert.x 5.2):</b> Vert.x copies received data out of a pooled buffer only when the
 * buffer comes from Netty's own {@code AdaptiveByteBufAllocator} or {@code PooledByteBufAllocator} (it compares the
 * allocator's class); any other buffer goes to the application as if it were unpooled and is never released. With
 * magalloc every request body and every read of a {@code NetSocket} keeps its pooled memory for good.
 * {@code VertxHttpTest} shows both halves: the allocator does reach Vert.x's channels, and the pool grows by about
 * one request body per request. The hook also relies on Vert.x setting its own allocator before it calls
 * {@code configure}, which is not a documented promise.
 */
public final class MagallocTransport implements Transport {
    private final Transport delegate;
    private final Allocating implementation;

    public MagallocTransport(Transport delegate, ByteBufAllocator allocator) {
        this.delegate = delegate;
        this.implementation = new Allocating(delegate.implementation(), allocator);
    }

    @Override
    public String name() {
        return delegate.name() + "+magalloc";
    }

    @Override
    public boolean available() {
        return delegate.available();
    }

    @Override
    public Throwable unavailabilityCause() {
        return delegate.unavailabilityCause();
    }

    @Override
    public io.vertx.core.spi.transport.Transport implementation() {
        return implementation;
    }

    /** The wrapped transport's implementation, plus the allocator on every TCP bootstrap. */
    private static final class Allocating implements io.vertx.core.spi.transport.Transport {
        private final io.vertx.core.spi.transport.Transport delegate;
        private final ByteBufAllocator allocator;

        Allocating(io.vertx.core.spi.transport.Transport delegate, ByteBufAllocator allocator) {
            this.delegate = delegate;
            this.allocator = allocator;
        }

        @Override
        public void configure(TcpConfig config, boolean domainSocket, Bootstrap bootstrap) {
            delegate.configure(config, domainSocket, bootstrap);
            bootstrap.option(ChannelOption.ALLOCATOR, allocator);
        }

        @Override
        public void configure(TcpConfig config, boolean domainSocket, ServerBootstrap bootstrap) {
            delegate.configure(config, domainSocket, bootstrap);
            bootstrap.option(ChannelOption.ALLOCATOR, allocator);
            bootstrap.childOption(ChannelOption.ALLOCATOR, allocator);
        }

        // Everything else as the wrapped transport does it.

        @Override
        public void configure(DatagramChannel channel, DatagramSocketOptions options) {
            delegate.configure(channel, options);
        }

        @Override
        public boolean supportsDomainSockets() {
            return delegate.supportsDomainSockets();
        }

        @Override
        public boolean supportFileRegion() {
            return delegate.supportFileRegion();
        }

        @Override
        public boolean isAvailable() {
            return delegate.isAvailable();
        }

        @Override
        public Throwable unavailabilityCause() {
            return delegate.unavailabilityCause();
        }

        @Override
        public java.net.SocketAddress convert(SocketAddress address) {
            return delegate.convert(address);
        }

        @Override
        public SocketAddress convert(java.net.SocketAddress address) {
            return delegate.convert(address);
        }

        @Override
        public IoHandlerFactory ioHandlerFactory() {
            return delegate.ioHandlerFactory();
        }

        @Override
        public EventLoopGroup eventLoopGroup(int type, int threads, ThreadFactory threadFactory, int ioRatio) {
            return delegate.eventLoopGroup(type, threads, threadFactory, ioRatio);
        }

        @Override
        @SuppressWarnings("deprecation") // the SPI's own signature
        public DatagramChannel datagramChannel(io.netty.channel.socket.InternetProtocolFamily family) {
            return delegate.datagramChannel(family);
        }

        @Override
        public ChannelFactory<? extends DatagramChannel> datagramChannelFactory() {
            return delegate.datagramChannelFactory();
        }

        @Override
        public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
            return delegate.channelFactory(domainSocket);
        }

        @Override
        public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
            return delegate.serverChannelFactory(domainSocket);
        }
    }
}
