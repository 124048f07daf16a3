package io.github.magalloc.receive;

import io.netty.buffer.ByteBuf;

import java.util.concurrent.atomic.LongAdder;

/**
 * The counts of one receive allocator, shared by the handles of all its channels (event loops on several threads
 * add to them at once, hence adders); each handle applies the {@link ReadBufferCut} after a read.
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
     * {@code bytes} were read into {@code buf} (the buffer just allocated): counts the read and applies the
     * {@link ReadBufferCut}.
     */
    void afterRead(ByteBuf buf, int bytes) {
        if (bytes <= 0) {
            return;
        }
        reads.increment();
        bytesRead.add(bytes);
        int cutBack = ReadBufferCut.afterRead(buf, bytes);
        if (cutBack > 0) {
            capacityCutBack.add(cutBack);
        }
    }

    ReceiveMetric metric() {
        return new ReceiveMetric(reads.sum(), bytesRead.sum(), capacityAllocated.sum(), capacityCutBack.sum());
    }
}
