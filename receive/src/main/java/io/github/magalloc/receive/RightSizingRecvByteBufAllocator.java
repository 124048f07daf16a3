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
    /** The default smallest guess, in bytes: 64, as Netty's adaptive allocator. */
    public static final int DEFAULT_MINIMUM = 64;
    /** The default first guess of a channel, in bytes: 2,048, as Netty's adaptive allocator. */
    public static final int DEFAULT_INITIAL = 2048;
    /** The default largest guess, in bytes: 65,536, as Netty's adaptive allocator. */
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
        if (ReceiveSizes.sizeAt(minIndex) > maximum) {
            // No guess could keep both bounds: the smallest allowed one would pass the maximum.
            throw new IllegalArgumentException("receive buffer sizes: minimum " + minimum + " rounds up to "
                + ReceiveSizes.sizeAt(minIndex) + ", above maximum " + maximum + " (expected: a size of the table, "
                + "magalloc's size classes then runs of 8 KiB pages, from minimum to maximum)");
        }
        this.maxIndex = ReceiveSizes.indexAtMost(maximum);
        this.initialIndex = Math.min(maxIndex, ReceiveSizes.indexAtLeast(initial));
        ReceiveEvents.watch(this);
    }

    /**
     * A builder starting from the defaults ({@link #DEFAULT_MINIMUM}, {@link #DEFAULT_INITIAL},
     * {@link #DEFAULT_MAXIMUM}); {@link Builder#build()} checks the sizes.
     *
     * @return a new builder; builders are not thread-safe
     */
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

    /**
     * The guess a channel starts with.
     *
     * @return the size in bytes, from {@link #minimum()} to {@link #maximum()}
     */
    public int initial() {
        return ReceiveSizes.sizeAt(initialIndex);
    }

    /**
     * The smallest guess.
     *
     * @return the size in bytes: the configured minimum rounded up to a size of the table
     */
    public int minimum() {
        return ReceiveSizes.sizeAt(minIndex);
    }

    /**
     * The largest guess.
     *
     * @return the size in bytes: the configured maximum rounded down to a size of the table, but never below
     *         {@link #minimum()}
     */
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

        /**
         * The smallest buffer a channel's guess goes down to. Rounds up to a size of the table.
         *
         * <p>Default: {@link #DEFAULT_MINIMUM} (64). Range: 1 to the initial guess. A value outside it makes
         * {@link #build()} throw {@link IllegalArgumentException}; this setter accepts any value.
         *
         * @param bytes the smallest guess, in bytes
         * @return this builder
         */
        public Builder minimum(int bytes) {
            this.minimum = bytes;
            return this;
        }

        /**
         * The first guess of a new channel. Rounds up to a size of the table, but not above the rounded maximum.
         *
         * <p>Default: {@link #DEFAULT_INITIAL} (2,048). Range: the minimum to the maximum. A value outside it makes
         * {@link #build()} throw {@link IllegalArgumentException}; this setter accepts any value.
         *
         * @param bytes the first guess, in bytes
         * @return this builder
         */
        public Builder initial(int bytes) {
            this.initial = bytes;
            return this;
        }

        /**
         * The largest buffer a channel's guess goes up to. Rounds down to a size of the table; a size of the table
         * must lie between the minimum and this value.
         *
         * <p>Default: {@link #DEFAULT_MAXIMUM} (65,536). Range: the initial guess to 1 GiB (1,073,741,824). A value
         * outside it makes {@link #build()} throw {@link IllegalArgumentException}; this setter accepts any value.
         *
         * @param bytes the largest guess, in bytes
         * @return this builder
         */
        public Builder maximum(int bytes) {
            this.maximum = bytes;
            return this;
        }

        /**
         * Checks the sizes and makes a receive allocator with them. The builder stays usable.
         *
         * @return a new receive allocator, for any number of channels
         * @throws IllegalArgumentException unless {@code 0 < minimum <= initial <= maximum <= 1 GiB} (the sizes as
         *                                  given) and the minimum rounded up to the table is at most the maximum
         */
        public RightSizingRecvByteBufAllocator build() {
            return new RightSizingRecvByteBufAllocator(minimum, initial, maximum);
        }
    }
}
