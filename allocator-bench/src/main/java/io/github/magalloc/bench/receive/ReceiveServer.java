package io.github.magalloc.bench.receive;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The HTTP server of the receive scenario, on loopback: NIO, one boss and ONE worker event loop, the allocator under
 * test and the receive setting on every accepted channel. Pipeline: {@link InFlightCounter}, the
 * {@link ElasticsearchTrim} when the setting asks for it, {@code HttpServerCodec}, {@code HttpObjectAggregator}
 * (1 MiB), {@link RequestHandler}.
 */
final class ReceiveServer implements AutoCloseable {
    /** The aggregator's limit. */
    static final int MAX_CONTENT = 1 << 20;
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final long TIMEOUT_SECONDS = 10;

    final ServerCounters counters = new ServerCounters();
    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("receive-boss"),
        NioIoHandler.newFactory());
    private final EventLoopGroup worker = new MultiThreadIoEventLoopGroup(1,
        new DefaultThreadFactory("receive-worker"), NioIoHandler.newFactory());
    private final ChannelGroup channels = new DefaultChannelGroup(worker.next());
    private final Thread workerThread;
    private Channel serverChannel;

    /**
     * @param allocator the allocator under test; with {@code direct} false its I/O buffers are made heap buffers
     *                  ({@link HeapIoAllocator}), which Netty's {@code ioBuffer} would not give otherwise
     */
    ReceiveServer(ByteBufAllocator allocator, boolean direct, RecvByteBufAllocator receive, boolean elasticsearchTrim)
            throws InterruptedException, ExecutionException, TimeoutException {
        workerThread = worker.next().submit(Thread::currentThread).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        ByteBufAllocator channelAllocator = direct ? allocator : new HeapIoAllocator(allocator);
        ServerBootstrap bootstrap = new ServerBootstrap()
            .group(boss, worker)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.ALLOCATOR, channelAllocator)
            .childOption(ChannelOption.RECVBUF_ALLOCATOR, receive)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    channels.add(ch);
                    InFlightCounter inFlight = new InFlightCounter(counters);
                    ChannelPipeline pipeline = ch.pipeline();
                    pipeline.addLast("in-flight", inFlight);
                    if (elasticsearchTrim) {
                        pipeline.addLast("es-trim", ElasticsearchTrim.INSTANCE);
                    }
                    pipeline.addLast("codec", new HttpServerCodec());
                    pipeline.addLast("aggregator", new HttpObjectAggregator(MAX_CONTENT));
                    pipeline.addLast("handler", new RequestHandler(counters, inFlight));
                }
            });
        try {
            ChannelFuture bound = bootstrap.bind(new InetSocketAddress("127.0.0.1", 0));
            if (!bound.await(TIMEOUT_SECONDS, TimeUnit.SECONDS) || !bound.isSuccess()) {
                throw new IllegalStateException("the server did not bind", bound.cause());
            }
            serverChannel = bound.channel();
        } catch (InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    SocketAddress address() {
        return serverChannel.localAddress();
    }

    /** Request bytes in flight, read on the worker loop so that everything it had to do before is done. */
    long inFlightBytesOnLoop() throws InterruptedException, ExecutionException, TimeoutException {
        return worker.next().submit(counters.inFlight::get).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** Heap bytes the worker event loop's thread has allocated so far, -1 if the JVM does not count them. */
    @SuppressWarnings("deprecation") // Thread#getId: threadId() only exists from Java 19
    long workerAllocatedBytes() {
        if (!THREADS.isThreadAllocatedMemorySupported() || !THREADS.isThreadAllocatedMemoryEnabled()) {
            return -1;
        }
        return THREADS.getThreadAllocatedBytes(workerThread.getId());
    }

    @Override
    public void close() {
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        channels.close().awaitUninterruptibly(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        worker.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        boss.terminationFuture().awaitUninterruptibly(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        worker.terminationFuture().awaitUninterruptibly(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
