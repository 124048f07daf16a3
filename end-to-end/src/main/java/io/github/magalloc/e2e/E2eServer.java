package io.github.magalloc.e2e;

import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.Rss;
import io.github.magalloc.workload.SizeDistribution;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;

import javax.net.ssl.SSLException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The HTTP server ({@link HttpServerInitializer}: HTTP/1.1 or HTTP/2, plain text or TLS) on one event-loop group and,
 * in proxy mode, a {@link TcpProxy} in front of it whose front end and backend connections use two further groups. In
 * proxy mode the proxy terminates TLS and the server behind it speaks the protocol in plain text. A separate admin
 * port serves GET /stats over plain HTTP/1.1 whatever the protocol. Every group's threads are counted for allocation,
 * and an {@link AllocatorCheck} on every server-side channel counts buffers not from the allocator. {@link #main}
 * runs it as its own process for the runner.
 */
public final class E2eServer implements AutoCloseable {
    /** The aggregator's limit: twice the largest body a workload sends ({@link SizeDistribution#MAX_SIZE}). */
    static final int MAX_CONTENT = 2 * SizeDistribution.MAX_SIZE;

    private final ByteBufAllocator alloc;
    private final JvmProbes probes = new JvmProbes();
    private final LongAdder served = new LongAdder();
    private final AllocatorCheck check;
    private final ChannelGroup openChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final List<EventLoopGroup> groups = new ArrayList<>();
    private final Channel httpChannel;
    private final Channel adminChannel;
    private final TcpProxy proxy;

    private E2eServer(ByteBufAllocator alloc, Transport transport, int threads, boolean withProxy, Protocol protocol,
                      Tls tls) throws InterruptedException, SSLException {
        this.alloc = alloc;
        this.check = new AllocatorCheck(alloc);
        EventLoopGroup httpGroup = group(transport, threads, "e2e-http");
        SslContext serverTls = tls.enabled() && !withProxy ? tls.serverContext(protocol) : null;
        httpChannel = bind(httpGroup, transport, new HttpServerInitializer(protocol, serverTls, check,
                () -> new HttpServerHandler(served, this::stats), openChannels));
        adminChannel = bind(httpGroup, transport, new HttpServerInitializer(Protocol.HTTP1, null, check,
                () -> new HttpServerHandler(served, this::stats), openChannels));
        if (withProxy) {
            proxy = TcpProxy.start(transport, alloc, group(transport, threads, "e2e-proxy-front"),
                    group(transport, threads, "e2e-proxy-back"), new InetSocketAddress("127.0.0.1", 0),
                    httpChannel.localAddress(), openChannels, tls.enabled() ? tls.serverContext(protocol) : null,
                    check);
        } else {
            proxy = null;
        }
    }

    private Channel bind(EventLoopGroup group, Transport transport, ChannelInitializer<Channel> initializer)
            throws InterruptedException {
        return new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .option(ChannelOption.ALLOCATOR, alloc)
                .childOption(ChannelOption.ALLOCATOR, alloc)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(initializer)
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** HTTP/1.1 in plain text. */
    public static E2eServer start(ByteBufAllocator alloc, Transport transport, int threads, boolean withProxy)
            throws InterruptedException, SSLException {
        return start(alloc, transport, threads, withProxy, Protocol.HTTP1, Tls.NONE);
    }

    /** With {@code tls} enabled, TLS is on the HTTP server itself, or in proxy mode on the proxy's front end. */
    public static E2eServer start(ByteBufAllocator alloc, Transport transport, int threads, boolean withProxy,
                                  Protocol protocol, Tls tls) throws InterruptedException, SSLException {
        return new E2eServer(alloc, transport, threads, withProxy, protocol, tls);
    }

    private EventLoopGroup group(Transport transport, int threads, String name) {
        EventLoopGroup g = transport.newGroup(threads, probes.threadFactory(name));
        groups.add(g);
        return g;
    }

    /** The HTTP server's own port; in proxy mode the proxy's backend, in plain text. */
    public int httpPort() {
        return ((InetSocketAddress) httpChannel.localAddress()).getPort();
    }

    /** GET /stats, plain HTTP/1.1. */
    public int adminPort() {
        return ((InetSocketAddress) adminChannel.localAddress()).getPort();
    }

    /** Where load goes: the proxy in proxy mode, the HTTP server otherwise. */
    public int port() {
        return proxy != null ? ((InetSocketAddress) proxy.localAddress()).getPort() : httpPort();
    }

    public TcpProxy proxy() {
        return proxy;
    }

    public List<EventLoopGroup> groups() {
        return groups;
    }

    public long openConnections() {
        return openChannels.size();
    }

    public ServerStats stats() {
        return new ServerStats(served.sum(), probes.allocatedBytes(), JvmProbes.gcCount(), JvmProbes.gcMillis(),
                Rss.bytes(), AllocatorKind.usedMemory(alloc), openConnections(),
                proxy != null ? proxy.crossThreadReleases() : 0, proxy != null ? proxy.sameThreadReleases() : 0,
                check.checked(), check.foreign());
    }

    /** The first few buffers not from the allocator, where they were seen ({@link AllocatorCheck}). */
    public String foreignBufferSamples() {
        return check.foreignSamples();
    }

    @Override
    public void close() {
        if (proxy != null) {
            proxy.close();
        }
        httpChannel.close().syncUninterruptibly();
        adminChannel.close().syncUninterruptibly();
        openChannels.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
        for (EventLoopGroup g : groups) {
            g.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        }
        for (EventLoopGroup g : groups) {
            g.terminationFuture().awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Runs the server until its standard input closes (so it never outlives the runner that started it) or it gets
     * SIGTERM. Prints one line "READY port=P admin=A allocator=... pid=..." when it accepts connections.
     * Arguments: --allocator magalloc|adaptive|pooled|unpooled, --transport nio|epoll, --threads N,
     * --mode direct|proxy, --protocol http1|http2, --tls none|jdk|openssl.
     */
    public static void main(String[] args) throws Exception {
        Args a = new Args(args);
        AllocatorKind kind = AllocatorKind.parse(a.get("allocator", "magalloc"));
        Transport transport = Transport.resolve(a.get("transport", "nio"));
        int threads = a.getInt("threads", 1);
        boolean withProxy = a.get("mode", "direct").equalsIgnoreCase("proxy");
        Protocol protocol = Protocol.parse(a.get("protocol", "http1"));
        Tls tls = Tls.parse(a.get("tls", "none"));
        a.rejectUnknown();

        // Direct buffers preferred, as Netty's own defaults do on a platform with direct memory.
        ByteBufAllocator alloc = kind.create(true);
        E2eServer server = start(alloc, transport, threads, withProxy, protocol, tls);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "e2e-server-shutdown"));
        System.out.printf("READY port=%d admin=%d allocator=%s transport=%s protocol=%s tls=%s class=%s pid=%d%n",
                server.port(), server.adminPort(), kind.label(), transport.name().toLowerCase(Locale.ROOT),
                protocol.label(), tls.label(), alloc.getClass().getName(), ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for EOF
        }
        System.exit(0);
    }
}
