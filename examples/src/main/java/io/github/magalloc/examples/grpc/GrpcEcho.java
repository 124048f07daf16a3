package io.github.magalloc.examples.grpc;

import io.github.magalloc.MagazineByteBufAllocator;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketAddress;

/**
 * gRPC Java ({@code grpc-netty} 1.83 and later, which run on Netty 4.2): an echo service, a server and a client
 * channel, both allocating from magalloc.
 *
 * <p>grpc-netty builds a pooled allocator of its own ({@code PooledByteBufAllocator} with 2 MiB chunks) and puts it
 * on every channel it makes, but options given to the builders come after it and win: {@code withOption} for the
 * listening channel (and, on {@link NettyChannelBuilder}, the client's connections), {@code withChildOption} for
 * the connections a server accepts, which do the reading and writing. {@code grpc-netty-shaded} cannot take
 * magalloc: its channels accept only allocators of its relocated Netty types.
 *
 * <p>The service has no {@code .proto} file: each method is a hand-written {@link MethodDescriptor} whose messages
 * are plain byte arrays, so nothing is generated.
 */
public final class GrpcEcho {
    public static final String SERVICE = "magalloc.examples.Echo";
    /** One request, the same bytes back. */
    public static final MethodDescriptor<byte[], byte[]> ECHO = method(MethodDescriptor.MethodType.UNARY, "Echo");
    /** Each request message comes back as a response message as soon as it arrives. */
    public static final MethodDescriptor<byte[], byte[]> ECHO_STREAM =
            method(MethodDescriptor.MethodType.BIDI_STREAMING, "EchoStream");

    private GrpcEcho() {
    }

    /**
     * A server on {@code address} serving {@link #service()}; start it with {@code build().start()}. grpc-netty
     * takes given event loop groups and channel type all together or not at all; naming NIO ones keeps it off native
     * transports. It does not shut given groups down: their owner does, after the server.
     */
    public static NettyServerBuilder server(SocketAddress address, EventLoopGroup boss, EventLoopGroup workers,
                                            ByteBufAllocator allocator) {
        return NettyServerBuilder.forAddress(address)
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .channelType(NioServerSocketChannel.class)
                .withOption(ChannelOption.ALLOCATOR, allocator)
                .withChildOption(ChannelOption.ALLOCATOR, allocator)
                .addService(service());
    }

    /** The usual choice: the shared instance, tuned by {@code magalloc.*} system properties. */
    public static NettyServerBuilder server(SocketAddress address, EventLoopGroup boss, EventLoopGroup workers) {
        return server(address, boss, workers, MagazineByteBufAllocator.DEFAULT);
    }

    /**
     * A plaintext client channel to {@code address} whose connections allocate from {@code allocator}; the event
     * loop group and channel type go together here too.
     */
    public static NettyChannelBuilder client(SocketAddress address, EventLoopGroup group, ByteBufAllocator allocator) {
        return NettyChannelBuilder.forAddress(address)
                .eventLoopGroup(group)
                .channelType(NioSocketChannel.class)
                .withOption(ChannelOption.ALLOCATOR, allocator)
                .usePlaintext();
    }

    /** {@link #ECHO} and {@link #ECHO_STREAM}. */
    public static ServerServiceDefinition service() {
        return ServerServiceDefinition.builder(SERVICE)
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
                    response.onNext(request);
                    response.onCompleted();
                }))
                .addMethod(ECHO_STREAM, ServerCalls.asyncBidiStreamingCall(response -> new StreamObserver<byte[]>() {
                    @Override
                    public void onNext(byte[] message) {
                        response.onNext(message);
                    }

                    @Override
                    public void onError(Throwable cause) {
                        // The call is already over (cancelled or failed); there is no one left to answer.
                    }

                    @Override
                    public void onCompleted() {
                        response.onCompleted();
                    }
                }))
                .build();
    }

    private static MethodDescriptor<byte[], byte[]> method(MethodDescriptor.MethodType type, String name) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(BytesMarshaller.INSTANCE)
                .setResponseMarshaller(BytesMarshaller.INSTANCE)
                .build();
    }

    /**
     * A message is its bytes. gRPC copies them into buffers from the channel's allocator when sending and out of
     * the received buffers when parsing, so the byte arrays never hold pooled memory.
     */
    private enum BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
        INSTANCE;

        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw Status.INTERNAL.withDescription("cannot read message").withCause(e).asRuntimeException();
            }
        }
    }
}
