package io.github.magalloc.receive;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;

/**
 * A receive allocator that sizes each channel's read buffers by the bytes its reads bring, and hands the pipeline
 * buffers cut to those bytes. Set it where Netty's {@code AdaptiveRecvByteBufAllocator} or a fixed size would go:
 * {@code bootstrap.childOption(ChannelOption.RECVBUF_ALLOCATOR, new RightSizingRecvByteBufAllocator())}.
 *
 * <ul>
 *   <li><b>Guesses</b> are magalloc's size classes up to 32 KiB, then runs of whole 8 KiB pages (48 KiB, 64 KiB, 96 KiB,
 *       ...), so a buffer of a guessed size takes exactly its memory, nothing rounded up.</li>
 *   <li><b>Learning, per channel</b>: a read that fills its buffer makes the next guess at least twice as large at
 *       once (the next read of the same loop already uses it); two reads in a row that fill at most half make it
 *       the smallest size that holds the larger of them. Never below the minimum or above the maximum.</li>
 *   <li><b>Cutting</b>: a read buffer filled at most half is cut to its bytes before the pipeline sees it
 *       ({@link ReadBufferCut}), so what a slow client's partial reads pin is about what they hold.</li>
 * </ul>
 *
 * <p>Defaults: minimum 64 B, initial 2 KiB, maximum 64 KiB (Netty's adaptive allocator's bounds). {@link #metric()}
 * counts reads, bytes read, capacity allocated and capacity cut back over all channels that use this instance; one
 * instance serves any number of channels.
 */
public final class RightSizingRecvByteBufAllocator extends DefaultMaxMessagesRecvByteBufAllocator
    implements ReceiveMetricProvider {
    public static final int DEFAULT_MINIMUM = 64;
    public static final int DEFAULT_INITIAL = 2048;
    public static final int DEFAULT_MAXIMUM = 64 * 1024;

    private final int minIndex;
    private final int initialIndex;
    private final int maxIndex;
    private final ReceiveCounters counters = new ReceiveCounters();

    /** The recommended defaults: minimum 64 B, initial 2 KiB, maximum 64 KiB. */
    public RightSizingRecvByteBufAllocator() {
        this(DEFAULT_MINIMUM, DEFAULT_INITIAL, DEFAULT_MAXIMUM);
    }

    private RightSizingRecvByteBufAllocator(int minimum, int initial, int maximum) {
        if (minimum <= 0 || initial < minimum || maximum < initial || maximum > ReceiveSizes.MAX) {
            throw new IllegalArgumentException("receive buffer sizes: minimum " + minimum + ", initial " + initial
                + ", maximum " + maximum + " (expected: 0 < minimum <= initial <= maximum <= " + ReceiveSizes.MAX
                + ")");
        }
        this.minIndex = ReceiveSizes.indexAtLeast(minimum);
        this.maxIndex = Math.max(minIndex, ReceiveSizes.indexAtMost(maximum));
        this.initialIndex = Math.min(maxIndex, ReceiveSizes.indexAtLeast(initial));
        ReceiveEvents.watch(this);
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public ExtendedHandle newHandle() {
        return new RightSizingHandle();
    }

    @Override
    public RightSizingRecvByteBufAllocator respectMaybeMoreData(boolean respectMaybeMoreData) {
        super.respectMaybeMoreData(respectMaybeMoreData);
        return this;
    }

    @Override
    public ReceiveMetric metric() {
        return counters.metric();
    }

    /** The guess a channel starts with, in bytes. */
    public int initial() {
        return ReceiveSizes.sizeAt(initialIndex);
    }

    /** The smallest guess, in bytes. */
    public int minimum() {
        return ReceiveSizes.sizeAt(minIndex);
    }

    /** The largest guess, in bytes. */
    public int maximum() {
        return ReceiveSizes.sizeAt(maxIndex);
    }

    /** One channel's guesses; used by its event loop only, like every handle. */
    private final class RightSizingHandle extends MaxMessageHandle {
        private int index = initialIndex;
        /** Set by a read that filled at most half its buffer; the next such read shrinks the guess. */
        private boolean shrinkPending;
        private int smallRead;
        /** The buffer this handle allocated last, until its read is counted. */
        private ByteBuf last;

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            ByteBuf buf = super.allocate(alloc);
            last = buf;
            counters.allocated(buf.capacity());
            return buf;
        }

        @Override
        public int guess() {
            return ReceiveSizes.sizeAt(index);
        }

        /** A new read loop: a buffer of the last one (its read may have thrown) is no longer this handle's. */
        @Override
        public void reset(ChannelConfig config) {
            last = null;
            super.reset(config);
        }

        @Override
        public void lastBytesRead(int bytes) {
            learn(bytes);
            super.lastBytesRead(bytes);
            ByteBuf buf = last;
            last = null;
            counters.afterRead(buf, bytes);
        }

        private void learn(int bytes) {
            if (bytes <= 0) {
                return;
            }
            int guess = guess();
            if (bytes >= guess) {
                index = Math.min(maxIndex, ReceiveSizes.indexAtLeast((int) Math.min(ReceiveSizes.MAX, 2L * guess)));
                shrinkPending = false;
            } else if (bytes <= guess >>> 1) {
                if (shrinkPending) {
                    index = Math.max(minIndex, Math.min(index, ReceiveSizes.indexAtLeast(Math.max(bytes, smallRead))));
                    shrinkPending = false;
                } else {
                    shrinkPending = true;
                    smallRead = bytes;
                }
            } else {
                shrinkPending = false;
            }
        }
    }

    /**
     * Minimum, initial and maximum guess, on the table of sizes (magalloc's classes, then page runs): the minimum and
     * the initial guess round up to a size of it, the maximum rounds down, so no guess is above it.
     */
    public static final class Builder {
        private int minimum = DEFAULT_MINIMUM;
        private int initial = DEFAULT_INITIAL;
        private int maximum = DEFAULT_MAXIMUM;

        private Builder() {
        }

        /** The smallest buffer a channel's guess goes down to. */
        public Builder minimum(int bytes) {
            this.minimum = bytes;
            return this;
        }

        /** The first guess of a new channel. */
        public Builder initial(int bytes) {
            this.initial = bytes;
            return this;
        }

        /** The largest buffer a channel's guess goes up to. */
        public Builder maximum(int bytes) {
            this.maximum = bytes;
            return this;
        }

        /** Throws {@link IllegalArgumentException} unless {@code 0 < minimum <= initial <= maximum <= 1 GiB}. */
        public RightSizingRecvByteBufAllocator build() {
            return new RightSizingRecvByteBufAllocator(minimum, initial, maximum);
        }
    }
}
