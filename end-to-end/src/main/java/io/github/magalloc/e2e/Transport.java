package io.github.magalloc.e2e;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.util.Locale;
import java.util.concurrent.ThreadFactory;

/** NIO always; epoll only where its native library loads (see {@link #resolve}). */
public enum Transport {
    NIO, EPOLL;

    public EventLoopGroup newGroup(int threads, ThreadFactory threadFactory) {
        IoHandlerFactory io = this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, io);
    }

    public Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public Class<? extends SocketChannel> channel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** "epoll" falls back to NIO, with the reason on stderr, when the native library is not there. */
    public static Transport resolve(String name) {
        Transport wanted = valueOf(name.trim().toUpperCase(Locale.ROOT));
        if (wanted == EPOLL) {
            try {
                if (Epoll.isAvailable()) {
                    return EPOLL;
                }
                System.err.println("epoll unavailable, using nio: " + Epoll.unavailabilityCause());
            } catch (LinkageError e) {
                System.err.println("epoll classes missing, using nio: " + e);
            }
            return NIO;
        }
        return wanted;
    }
}
