package io.github.magalloc.bench.receive;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The clients of the receive scenario, in the server's JVM but on an event loop group of their own (one thread), with
 * unpooled heap buffers (heap reads too, {@link HeapIoAllocator}), so that they never touch the server's allocator.
 * Each client is one connection ({@code TCP_NODELAY}) that POSTs {@link #BODY_BYTES} bytes again and again, one
 * request at a time: it sends the next only when the response to the last has come. The request, head and body, goes
 * out as {@link #SEGMENT_BYTES}-byte segments: in {@link ClientMode#PACED} mode one segment per millisecond, each
 * written and flushed on its own by a task the client loop runs every millisecond (staggered over the clients); in
 * {@link ClientMode#BACK_TO_BACK} mode all segments are written, then flushed once. A connection the server closes
 * (after an {@link OutOfMemoryError}, say) is opened again and the request started over.
 *
 * <p>Everything about a client happens on the client loop; the counters are read by other threads.
 */
final class ReceiveClients implements AutoCloseable {
    /** A TCP segment's payload on an Ethernet network (MSS 1,460). */
    static final int SEGMENT_BYTES = 1460;
    static final int BODY_BYTES = 64 * 1024;
    /** The request each client sends, head and body. */
    static final byte[] REQUEST = request();
    private static final long PACE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long RECONNECT_MILLIS = 10;
    private static final long TIMEOUT_SECONDS = 10;

    final LongAdder responses = new LongAdder();
    /** Responses other than 200 OK. */
    final LongAdder badResponses = new LongAdder();
    /** Connections opened again after the server closed them. */
    final LongAdder reconnects = new LongAdder();
    final LongAdder errors = new LongAdder();

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("receive-client"),
        NioIoHandler.newFactory());
    private final EventLoop loop = group.next();
    private final SocketAddress server;
    private final ClientMode mode;
    private final Bootstrap bootstrap;
    private final List<Client> clients = new ArrayList<>();
    private final CompletableFuture<Void> allConnected = new CompletableFuture<>();
    private final CompletableFuture<Void> allStopped = new CompletableFuture<>();
    /** Client loop only: the clients are to finish their request and send no more. */
    private boolean stopping;
    /** Client loop only: clients connected at the start, then clients not yet finished. */
    private int connected;
    private int running;

    ReceiveClients(SocketAddress server, ClientMode mode, int count) {
        this.server = server;
        this.mode = mode;
        this.bootstrap = new Bootstrap()
            .group(loop)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.ALLOCATOR, new HeapIoAllocator(new UnpooledByteBufAllocator(false)));
        for (int i = 0; i < count; i++) {
            clients.add(new Client(i * PACE_NANOS / count));
        }
    }

    private static byte[] request() {
        byte[] head = ("POST /_bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: " + BODY_BYTES + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[BODY_BYTES];
        new Random(42).nextBytes(body);
        byte[] request = new byte[head.length + body.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        return request;
    }

    /** Connects every client and starts its first request; returns when all are connected. */
    void start() throws InterruptedException, ExecutionException, TimeoutException {
        loop.execute(() -> {
            running = clients.size();
            for (Client client : clients) {
                client.connect(true);
            }
        });
        allConnected.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Lets every client finish the request it is sending and stop; false if they did not all within the timeout.
     */
    boolean stop(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException {
        loop.execute(() -> {
            stopping = true;
            for (Client client : clients) {
                if (!client.sending && !client.awaiting) {
                    client.finish();
                }
            }
        });
        try {
            allStopped.get(timeout, unit);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (!loop.isShuttingDown()) {
            loop.submit(() -> {
                stopping = true;
                for (Client client : clients) {
                    if (client.channel != null) {
                        client.channel.close();
                    }
                }
            }).awaitUninterruptibly(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        group.terminationFuture().awaitUninterruptibly(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** One connection and its requests; client loop only. */
    private final class Client {
        private final long paceOffsetNanos;
        private final Bootstrap clientBootstrap;
        private Channel channel;
        /** Paced: the next byte of {@link #REQUEST} to send. */
        private int offset;
        /** Paced: the request's segments are going out. */
        private boolean sending;
        /** The request is out, its response has not come yet. */
        private boolean awaiting;
        private boolean finished;
        private int status;
        private ScheduledFuture<?> pacer;

        Client(long paceOffsetNanos) {
            this.paceOffsetNanos = paceOffsetNanos;
            // A response decoder only: the requests go out as raw segments, which an HTTP encoder would refuse.
            this.clientBootstrap = bootstrap.clone().handler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new HttpResponseDecoder(), new ResponseHandler());
                }
            });
        }

        void connect(boolean first) {
            if (stopping) {
                finish();
                return;
            }
            clientBootstrap.connect(server).addListener((ChannelFutureListener) future -> {
                if (!future.isSuccess()) {
                    if (first) {
                        allConnected.completeExceptionally(future.cause());
                    } else if (stopping) {
                        finish();
                    } else {
                        errors.increment();
                        loop.schedule(() -> connect(false), 100, TimeUnit.MILLISECONDS);
                    }
                    return;
                }
                Channel ch = future.channel();
                if (stopping) {
                    ch.close();
                    finish();
                    return;
                }
                channel = ch;
                ch.closeFuture().addListener((ChannelFutureListener) closed -> closed(closed.channel()));
                startRequest();
                if (first && ++connected == clients.size()) {
                    allConnected.complete(null);
                }
            });
        }

        private void startRequest() {
            if (mode == ClientMode.PACED) {
                offset = 0;
                sending = true;
                if (pacer == null) {
                    pacer = loop.scheduleWithFixedDelay(this::sendSegment, paceOffsetNanos, PACE_NANOS,
                        TimeUnit.NANOSECONDS);
                }
            } else {
                for (int at = 0; at < REQUEST.length; at += SEGMENT_BYTES) {
                    channel.write(Unpooled.wrappedBuffer(REQUEST, at, Math.min(SEGMENT_BYTES, REQUEST.length - at)),
                        channel.voidPromise());
                }
                channel.flush();
                awaiting = true;
            }
        }

        /** Paced: the next segment, written and flushed on its own. */
        private void sendSegment() {
            if (!sending || channel == null) {
                return;
            }
            int length = Math.min(SEGMENT_BYTES, REQUEST.length - offset);
            channel.writeAndFlush(Unpooled.wrappedBuffer(REQUEST, offset, length), channel.voidPromise());
            offset += length;
            if (offset == REQUEST.length) {
                sending = false;
                awaiting = true;
            }
        }

        private void responded() {
            responses.increment();
            if (status != 200) {
                badResponses.increment();
            }
            sending = false;
            awaiting = false;
            if (stopping) {
                finish();
            } else {
                startRequest();
            }
        }

        private void closed(Channel ch) {
            if (ch != channel) {
                return;
            }
            channel = null;
            sending = false;
            awaiting = false;
            if (stopping) {
                finish();
            } else {
                reconnects.increment();
                loop.schedule(() -> connect(false), RECONNECT_MILLIS, TimeUnit.MILLISECONDS);
            }
        }

        void finish() {
            if (finished) {
                return;
            }
            finished = true;
            if (pacer != null) {
                pacer.cancel(false);
            }
            if (--running == 0) {
                allStopped.complete(null);
            }
        }

        /** Reads the status of each response and starts the next request at its end. */
        private final class ResponseHandler extends SimpleChannelInboundHandler<HttpObject> {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
                if (msg instanceof HttpResponse) {
                    status = ((HttpResponse) msg).status().code();
                }
                if (msg instanceof LastHttpContent) {
                    responded();
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                errors.increment();
                ctx.close();
            }
        }
    }
}
