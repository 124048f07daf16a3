package io.github.magalloc.receive;

import io.netty.buffer.ByteBuf;

import java.util.concurrent.atomic.LongAdder;

/**
 * The counts of one receive allocator, shared by the handles of all its channels (event loops on several threads
 * add to them at once, hence adders), and the cutting every handle applies after a read.
 *
 * <p>The rule of the cut: a read buffer that the read filled at most half of is cut to its bytes
 * ({@code capacity(bytesRead)}) before the pipeline sees it, so that a decoder that keeps it, or a slice of it, keeps
 * about the bytes it holds, not the guess. A magalloc buffer then moves to the smallest size class that holds them,
 * or gives its tail pages back in place (docs/design.md, protocol 6a (shrinking)); another allocator's buffer does
 * what its {@code capacity(int)} does (Netty's pooled allocator moves it too). A buffer filled more than half is left
 * as it is: the move would save less than it costs.
 */
final class ReceiveCounters {
    private final LongAdder reads = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder capacityAllocated = new LongAdder();
    private final LongAdder capacityCutBack = new LongAdder();

    /** A read buffer of {@code capacity} bytes was allocated. */
    void allocated(int capacity) {
        capacityAllocated.add(capacity);
    }

    /**
     * {@code bytes} were read into {@code buf} (the buffer just allocated, whose writer index the read moved from 0):
     * counts the read and cuts the buffer down if it was filled at most half. A read of nothing (end of stream,
     * no data) or a buffer that is not as the read left it is not touched.
     */
    void afterRead(ByteBuf buf, int bytes) {
        if (bytes <= 0) {
            return;
        }
        reads.increment();
        bytesRead.add(bytes);
        if (buf == null || buf.readerIndex() != 0 || buf.writerIndex() != bytes) {
            return;
        }
        int capacity = buf.capacity();
        if (bytes <= capacity >>> 1 && cut(buf, bytes)) {
            capacityCutBack.add(capacity - bytes);
        }
    }

    /**
     * Best effort: a cut that moves the buffer allocates its new memory before it frees the old, so with memory
     * exhausted it fails. The read itself succeeded, and an exception here would make Netty close the channel, so the
     * buffer goes up the pipeline as it is, uncut, and keeps its bytes (the move changes nothing when it fails).
     */
    private static boolean cut(ByteBuf buf, int bytes) {
        try {
            buf.capacity(bytes);
            return true;
        } catch (OutOfMemoryError exhausted) {
            return false;
        }
    }

    ReceiveMetric metric() {
        return new ReceiveMetric(reads.sum(), bytesRead.sum(), capacityAllocated.sum(), capacityCutBack.sum());
    }
}
