package io.github.magalloc.receive;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The receive allocators where a channel's read goes wrong or the application makes many of them: a read that threw
 * leaves the handle holding no buffer, a cut that cannot get memory leaves the buffer as the read left it, a null
 * allocator is refused at once, and receive allocators made and dropped by the million leave nothing behind.
 */
class ReceiveEdgesTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();

    @AfterEach
    void close() {
        channel.close();
    }

    /** Both receive allocators of the module, as a channel would be given them. */
    private static final Supplier<RecvByteBufAllocator> RIGHT_SIZING = RightSizingRecvByteBufAllocator::new;
    private static final Supplier<RecvByteBufAllocator> CUTTING =
        () -> ReadBufferCutting.wrap(new FixedRecvByteBufAllocator(4096));

    @Test
    void aReadThatThrewLeavesNoBufferInTheRightSizingHandle() {
        aReadThatThrewLeavesNoBufferInTheHandle(RIGHT_SIZING.get());
    }

    @Test
    void aReadThatThrewLeavesNoBufferInTheCuttingHandle() {
        aReadThatThrewLeavesNoBufferInTheHandle(CUTTING.get());
    }

    /**
     * The read loop allocates, the read throws (no bytes reported), the channel releases the buffer, and its object is
     * handed to someone else, who writes 10 bytes into it. The next loop's reset, then a report of 10 bytes read before
     * any allocation, must not cut that other owner's buffer.
     */
    @SuppressWarnings("deprecation") // newHandle() is declared to return the deprecated Handle type
    private void aReadThatThrewLeavesNoBufferInTheHandle(RecvByteBufAllocator receive) {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        RecvByteBufAllocator.ExtendedHandle handle = (RecvByteBufAllocator.ExtendedHandle) receive.newHandle();
        handle.reset(channel.config());
        ByteBuf read = handle.allocate(alloc);
        int capacity = read.capacity();
        read.release(); // the read threw; the channel releases its buffer
        ByteBuf other = alloc.buffer(capacity);
        try {
            assertThat(unwrap(other)).as("the released object is handed out again").isSameAs(unwrap(read));
            other.writeBytes(new byte[10]);

            handle.reset(channel.config());
            handle.lastBytesRead(10);
            assertThat(other.capacity()).as("another owner's buffer").isEqualTo(capacity);
        } finally {
            other.release();
        }
    }

    @Test
    void aCutThatCannotGetMemoryLeavesTheBufferUncutAndTheReadStands() {
        for (Supplier<RecvByteBufAllocator> receive : List.of(RIGHT_SIZING, CUTTING)) {
            RecvByteBufAllocator allocator = receive.get();
            @SuppressWarnings("deprecation") // newHandle() is declared to return the deprecated Handle type
            RecvByteBufAllocator.ExtendedHandle handle = (RecvByteBufAllocator.ExtendedHandle) allocator.newHandle();
            handle.reset(channel.config());
            ByteBuf buf = handle.allocate(new ExhaustedOnShrink());
            int capacity = buf.capacity();
            buf.writeBytes(new byte[] {1, 2, 3});
            handle.lastBytesRead(3);
            assertThat(buf.capacity()).as("uncut").isEqualTo(capacity);
            assertThat(buf.readableBytes()).isEqualTo(3);
            assertThat(buf.getByte(2)).isEqualTo((byte) 3);
            assertThat(handle.lastBytesRead()).isEqualTo(3);
            ReceiveMetric metric = ((ReceiveMetricProvider) allocator).metric();
            assertThat(metric.reads()).isEqualTo(1);
            assertThat(metric.capacityCutBack()).as("nothing was cut back").isZero();
            buf.release();
        }
    }

    @Test
    void wrappingNullIsRefusedAtOnceWithItsName() {
        assertThatThrownBy(() -> ReadBufferCutting.wrap(null)).isInstanceOf(NullPointerException.class)
            .hasMessageContaining("allocator");
    }

    /**
     * One receive allocator per channel, made in {@code initChannel} and dropped with the channel: a million of them
     * leave at most 1 MiB of heap (the flight recorder's list of them holds each weakly and drops the cleared ones).
     */
    @Test
    void aMillionReceiveAllocatorsMadeAndDroppedLeaveAtMostOneMiB() throws InterruptedException {
        long before = heapAfterCollection();
        for (int i = 0; i < 1_000_000; i++) {
            (i % 2 == 0 ? RIGHT_SIZING : CUTTING).get();
        }
        // The list lets go of its cleared entries in the sweep after a collection, which the next one then takes.
        long left = Long.MAX_VALUE;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (left > LIMIT_BYTES && System.nanoTime() < deadline) {
            left = heapAfterCollection() - before;
        }
        assertThat(left).as("heap left by a million dropped receive allocators").isLessThanOrEqualTo(LIMIT_BYTES);
    }

    private static final long LIMIT_BYTES = 1L << 20;

    private static long heapAfterCollection() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static ByteBuf unwrap(ByteBuf buf) {
        ByteBuf b = buf;
        while (b.unwrap() != null) {
            b = b.unwrap();
        }
        return b;
    }

    /** Buffers whose move to smaller memory fails as an allocation does when memory is exhausted. */
    private static final class ExhaustedOnShrink extends AbstractByteBufAllocator {
        ExhaustedOnShrink() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity) {
                @Override
                public ByteBuf capacity(int newCapacity) {
                    if (newCapacity < capacity()) {
                        throw new OutOfMemoryError("no memory for the cut's new buffer");
                    }
                    return super.capacity(newCapacity);
                }
            };
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return newHeapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }
}
