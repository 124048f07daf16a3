package io.github.magalloc.examples.grpc;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.examples.PoolGrowth;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class GrpcEchoTest {
    private static final int SIZE = 200_000;
    /** Messages per streaming call, each of {@code STREAM_MESSAGE_SIZE} bytes and different from the others. */
    private static final int STREAM_MESSAGES = 10;
    private static final int STREAM_MESSAGE_SIZE = 20_000;

    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    /**
     * The channels grpc-netty makes. It has no public hook into their pipelines, but it takes channel factories:
     * the test's factories record each channel and put a recorder first in its pipeline.
     */
    private final List<Channel> listeningChannels = new CopyOnWriteArrayList<>();
    private final List<Channel> clientChannels = new CopyOnWriteArrayList<>();
    /** Which allocator each side's channels have when they read, and which allocated the buffers they read. */
    private final Set<ByteBufAllocator> acceptedChannels = ConcurrentHashMap.newKeySet();
    private final Set<ByteBufAllocator> serverReadFrom = ConcurrentHashMap.newKeySet();
    private final Set<ByteBufAllocator> clientConnections = ConcurrentHashMap.newKeySet();
    private final Set<ByteBufAllocator> clientReadFrom = ConcurrentHashMap.newKeySet();
    private final byte[] payload = new byte[SIZE];
    private final List<byte[]> streamPayload = new ArrayList<>();
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Server server;
    private ManagedChannel client;

    @BeforeEach
    void start() throws IOException {
        Random random = new Random(12);
        random.nextBytes(payload);
        for (int i = 0; i < STREAM_MESSAGES; i++) {
            byte[] message = new byte[STREAM_MESSAGE_SIZE];
            random.nextBytes(message);
            streamPayload.add(message);
        }
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        // The channel factories replace GrpcEcho's channelType(...) with the same NIO channels, plus recording.
        server = GrpcEcho.server(new InetSocketAddress("127.0.0.1", 0), boss, workers, allocator)
                .channelFactory(() -> {
                    NioServerSocketChannel channel = new NioServerSocketChannel();
                    // First in the listening channel's pipeline, so it sees each accepted channel before Netty's
                    // acceptor sets the child options and adds grpc-netty's handlers behind this recorder.
                    channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object accepted) {
                            ((Channel) accepted).pipeline().addLast(new ReadRecorder(acceptedChannels, serverReadFrom));
                            ctx.fireChannelRead(accepted);
                        }
                    });
                    listeningChannels.add(channel);
                    return channel;
                })
                .build()
                .start();
        client = GrpcEcho.client(server.getListenSockets().get(0), workers, allocator)
                .channelFactory(() -> {
                    NioSocketChannel channel = new NioSocketChannel();
                    channel.pipeline().addLast(new ReadRecorder(clientConnections, clientReadFrom));
                    clientChannels.add(channel);
                    return channel;
                })
                .build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        client.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private byte[] echo(byte[] request) {
        return ClientCalls.blockingUnaryCall(client, GrpcEcho.ECHO, callOptions(), request);
    }

    /** Sends the messages on one bidirectional stream and returns what came back, in order. */
    private List<byte[]> echoStream(List<byte[]> messages) throws Exception {
        CompletableFuture<List<byte[]>> done = new CompletableFuture<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(
                client.newCall(GrpcEcho.ECHO_STREAM, callOptions()), new StreamObserver<>() {
                    private final List<byte[]> received = new ArrayList<>();

                    @Override
                    public void onNext(byte[] message) {
                        received.add(message);
                    }

                    @Override
                    public void onError(Throwable cause) {
                        done.completeExceptionally(cause);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(received);
                    }
                });
        messages.forEach(requests::onNext);
        requests.onCompleted();
        return done.get(10, TimeUnit.SECONDS);
    }

    private static CallOptions callOptions() {
        return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private void roundTrip() throws Exception {
        assertThat(Arrays.equals(echo(payload), payload)).as("unary echo").isTrue();
        assertThat(Arrays.deepEquals(echoStream(streamPayload).toArray(), streamPayload.toArray()))
                .as("streamed echo").isTrue();
    }

    @Test
    void unaryAndStreamingCallsAllocateFromMagalloc() throws Exception {
        roundTrip();

        assertThat(listeningChannels).singleElement()
                .satisfies(channel -> assertThat(channel.config().getAllocator()).isSameAs(allocator));
        assertThat(clientChannels).singleElement()
                .satisfies(channel -> assertThat(channel.config().getAllocator()).isSameAs(allocator));
        assertThat(acceptedChannels).containsExactly(allocator);
        assertThat(serverReadFrom).containsExactly(allocator);
        assertThat(clientConnections).containsExactly(allocator);
        assertThat(clientReadFrom).containsExactly(allocator);
        assertThat(allocator.metric().usedDirectMemory()).isPositive();
    }

    @Test
    void everyBufferGoesBackToThePool() throws Exception {
        long growth = PoolGrowth.measure(allocator.metric(), this::roundTrip);

        assertThat(growth).isLessThan(PoolGrowth.LEVELS_OFF);
    }

    /**
     * First in a connection's pipeline, so it sees the buffers as the channel read them from the socket, before
     * grpc-netty's HTTP/2 handlers take them; passes each one on untouched.
     */
    private static final class ReadRecorder extends ChannelInboundHandlerAdapter {
        private final Set<ByteBufAllocator> channelAllocators;
        private final Set<ByteBufAllocator> bufferAllocators;

        ReadRecorder(Set<ByteBufAllocator> channelAllocators, Set<ByteBufAllocator> bufferAllocators) {
            this.channelAllocators = channelAllocators;
            this.bufferAllocators = bufferAllocators;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            channelAllocators.add(ctx.channel().config().getAllocator());
            bufferAllocators.add(((ByteBuf) msg).alloc());
            ctx.fireChannelRead(msg);
        }
    }
}
