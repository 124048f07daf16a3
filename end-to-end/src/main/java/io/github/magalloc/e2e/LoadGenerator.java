package io.github.magalloc.e2e;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.HdrHistogram.Histogram;

import javax.net.ssl.SSLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Netty HTTP client on loopback (HTTP/1.1 or HTTP/2, plain text or TLS: {@link Http1LoadConnection},
 * {@link Http2LoadConnection}) that drives a {@link LoadConfig} and verifies every response. Its own allocator is
 * always Netty's adaptive one, whatever the server uses, so only the server side changes between runs.
 *
 * <p>Latency is recorded with HdrHistogram from the moment a request is written until its response is read, so with
 * pipelining it includes queueing behind earlier requests on the same connection. The load is closed-loop (a new
 * request only when one is answered), which under-reports tail latency when the server stalls (coordinated omission).
 */
public final class LoadGenerator {
    /** Requests still in flight when the time budget ends get this long to be answered. */
    private static final long DRAIN_SECONDS = 30;

    /** State shared by the connections of one run. */
    static final class Shared {
        final LoadConfig config;
        final long deadlineNanos;
        final AtomicLong issued = new AtomicLong();
        final LongAdder verified = new LongAdder();
        final LongAdder failures = new LongAdder();
        final ConcurrentLinkedQueue<String> failureSamples = new ConcurrentLinkedQueue<>();

        Shared(LoadConfig config, long startNanos) {
            this.config = config;
            this.deadlineNanos = startNanos + config.duration().toNanos();
        }

        boolean tryAcquire() {
            return System.nanoTime() - deadlineNanos < 0 && issued.getAndIncrement() < config.maxRequests();
        }

        void fail(String what) {
            failures.increment();
            if (failureSamples.size() < 10) {
                failureSamples.add(what);
            }
        }
    }

    static Histogram newHistogram() {
        return new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    }

    private LoadGenerator() {
    }

    private static void awaitQuietly(CompletableFuture<Void> f) throws InterruptedException {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("connection did not close", e);
        }
    }

    public static LoadResult run(LoadConfig config) throws InterruptedException, SSLException {
        EventLoopGroup group = config.transport().newGroup(1, new DefaultThreadFactory("e2e-load"));
        try {
            return run(config, group);
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    public static LoadResult run(LoadConfig config, EventLoopGroup group) throws InterruptedException, SSLException {
        SslContext ssl = config.tls().enabled() ? config.tls().clientContext(config.protocol()) : null;
        long start = System.nanoTime();
        Shared shared = new Shared(config, start);
        List<LoadConnection> handlers = new ArrayList<>();
        List<Channel> channels = new ArrayList<>();
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(config.transport().channel())
                .option(ChannelOption.ALLOCATOR, new AdaptiveByteBufAllocator(true))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000);
        for (int i = 0; i < config.connections(); i++) {
            long seed = config.seed() * 1_000_003L + i;
            LoadConnection handler = config.protocol() == Protocol.HTTP2 ? new Http2LoadConnection(shared, seed)
                    : new Http1LoadConnection(shared, seed);
            ChannelFuture f = b.clone().handler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    if (ssl != null) {
                        ch.pipeline().addLast(ssl.newHandler(ch.alloc(), config.host(), config.port()));
                    }
                    ch.pipeline().addLast(handler); // adds its codecs, after the handshake over TLS
                }
            }).connect(config.host(), config.port());
            if (!f.await(15, TimeUnit.SECONDS) || !f.isSuccess()) {
                shared.fail("connect " + i + " failed: " + f.cause());
                f.channel().close();
                continue;
            }
            handlers.add(handler);
            channels.add(f.channel());
        }
        long waitNanos = config.duration().toNanos() + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
        for (int i = 0; i < channels.size(); i++) {
            long left = waitNanos - (System.nanoTime() - start);
            try {
                handlers.get(i).done.get(Math.max(1, left), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                shared.fail("connection " + channels.get(i) + " still busy after the drain time");
                channels.get(i).close();
                awaitQuietly(handlers.get(i).done);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
        long elapsed = System.nanoTime() - start;
        // Every connection has finished its channelInactive: its event loop no longer touches its histogram.
        Histogram all = newHistogram();
        for (LoadConnection h : handlers) {
            all.add(h.latencyNanos);
        }
        return new LoadResult(shared.verified.sum(), shared.failures.sum(), List.copyOf(shared.failureSamples), all,
                elapsed);
    }
}
