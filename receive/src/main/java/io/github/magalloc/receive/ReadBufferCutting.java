package io.github.magalloc.receive;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;
import io.netty.util.internal.ObjectUtil;

/**
 * Adds the cut of {@link RightSizingRecvByteBufAllocator} to any receive allocator: a fixed size
 * ({@code new FixedRecvByteBufAllocator(512 * 1024)}), Netty's {@code AdaptiveRecvByteBufAllocator}, a framework's
 * own. The wrapped allocator still decides the guesses and when a channel goes on reading; each read buffer it sized
 * is cut to its bytes before the pipeline sees it when the read filled it at most half ({@link ReadBufferCut}), so
 * the configured size no longer decides the memory that buffers kept by the pipeline hold.
 *
 * <pre>
 * bootstrap.childOption(ChannelOption.RECVBUF_ALLOCATOR,
 *     ReadBufferCutting.wrap(new FixedRecvByteBufAllocator(512 * 1024)));
 * </pre>
 */
public final class ReadBufferCutting {
    private ReadBufferCutting() {
    }

    /**
     * {@code allocator} with its read buffers cut to their bytes. The result is a
     * {@link MaxMessagesRecvByteBufAllocator} when {@code allocator} is one (channel configs need that for
     * {@code setMaxMessagesPerRead}), and a {@link ReceiveMetricProvider} that counts its reads.
     *
     * @param allocator the receive allocator that sizes the read buffers and decides when to read on, not null
     * @return a new receive allocator that delegates to {@code allocator} and cuts its read buffers
     * @throws NullPointerException if {@code allocator} is null
     */
    public static RecvByteBufAllocator wrap(RecvByteBufAllocator allocator) {
        ObjectUtil.checkNotNull(allocator, "allocator");
        Cutting cutting = allocator instanceof MaxMessagesRecvByteBufAllocator
            ? new CuttingMaxMessages((MaxMessagesRecvByteBufAllocator) allocator)
            : new Cutting(allocator);
        ReceiveEvents.watch(cutting);
        return cutting;
    }

    /** The wrapper of an allocator that is not a {@link MaxMessagesRecvByteBufAllocator}. */
    private static class Cutting implements RecvByteBufAllocator, ReceiveMetricProvider {
        private final RecvByteBufAllocator delegate;
        final ReceiveCounters counters = new ReceiveCounters();

        Cutting(RecvByteBufAllocator delegate) {
            this.delegate = delegate;
        }

        @Override
        public ExtendedHandle newHandle() {
            return new CuttingHandle(delegate.newHandle(), counters);
        }

        @Override
        public ReceiveMetric metric() {
            return counters.metric();
        }

        @Override
        public String toString() {
            return "ReadBufferCutting(" + delegate + ")";
        }
    }

    /** The wrapper of a {@link MaxMessagesRecvByteBufAllocator}: the messages per read are the wrapped one's. */
    private static final class CuttingMaxMessages extends Cutting implements MaxMessagesRecvByteBufAllocator {
        private final MaxMessagesRecvByteBufAllocator maxMessages;

        CuttingMaxMessages(MaxMessagesRecvByteBufAllocator delegate) {
            super(delegate);
            this.maxMessages = delegate;
        }

        @Override
        public int maxMessagesPerRead() {
            return maxMessages.maxMessagesPerRead();
        }

        @Override
        public MaxMessagesRecvByteBufAllocator maxMessagesPerRead(int maxMessagesPerRead) {
            maxMessages.maxMessagesPerRead(maxMessagesPerRead);
            return this;
        }
    }

    /**
     * A channel's handle: everything is the wrapped handle's, but the buffer it allocated is remembered until the
     * read into it is reported, then counted and cut. An extended handle, as the epoll transport requires.
     */
    // RecvByteBufAllocator.newHandle() still returns the deprecated Handle type, so the wrapped handle has that type.
    @SuppressWarnings("deprecation")
    private static final class CuttingHandle implements RecvByteBufAllocator.ExtendedHandle {
        private final RecvByteBufAllocator.Handle delegate;
        private final ReceiveCounters counters;
        private ByteBuf last;

        CuttingHandle(RecvByteBufAllocator.Handle delegate, ReceiveCounters counters) {
            this.delegate = delegate;
            this.counters = counters;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            ByteBuf buf = delegate.allocate(alloc);
            last = buf;
            counters.allocated(buf.capacity());
            return buf;
        }

        @Override
        public void lastBytesRead(int bytes) {
            delegate.lastBytesRead(bytes);
            ByteBuf buf = last;
            last = null;
            counters.afterRead(buf, bytes);
        }

        @Override
        public int guess() {
            return delegate.guess();
        }

        /** A new read loop: a buffer of the last one (its read may have thrown) is no longer this handle's. */
        @Override
        public void reset(ChannelConfig config) {
            last = null;
            delegate.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            delegate.incMessagesRead(numMessages);
        }

        @Override
        public int lastBytesRead() {
            return delegate.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            delegate.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return delegate.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return delegate.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return delegate instanceof RecvByteBufAllocator.ExtendedHandle
                ? ((RecvByteBufAllocator.ExtendedHandle) delegate).continueReading(maybeMoreDataSupplier)
                : delegate.continueReading();
        }

        @Override
        public void readComplete() {
            delegate.readComplete();
        }
    }
}
