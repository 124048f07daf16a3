package io.github.magalloc.bench.receive;

import io.netty.buffer.ByteBuf;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the server counts. Only its one worker event loop adds to these; the sampler and the main thread read them.
 */
final class ServerCounters {
    /** Request bytes read and not yet released with their aggregated request, over all channels. */
    final AtomicLong inFlight = new AtomicLong();
    /** Aggregated requests handled: complete ones (a body of {@link ReceiveClients#BODY_BYTES}) and others. */
    final LongAdder requests = new LongAdder();
    final LongAdder badRequests = new LongAdder();
    /** {@link OutOfMemoryError}s the pipeline saw (read buffer allocations included), and every other exception. */
    final LongAdder outOfMemoryErrors = new LongAdder();
    final LongAdder otherErrors = new LongAdder();
    /** Read buffers the pipeline got, by kind of memory. */
    final LongAdder heapReadBuffers = new LongAdder();
    final LongAdder directReadBuffers = new LongAdder();

    void readBuffer(ByteBuf buf) {
        (buf.isDirect() ? directReadBuffers : heapReadBuffers).increment();
    }

    void request(boolean complete) {
        requests.increment();
        if (!complete) {
            badRequests.increment();
        }
    }

    void error(Throwable cause) {
        (isOutOfMemory(cause) ? outOfMemoryErrors : otherErrors).increment();
    }

    /** "heap", "direct", "mixed" or "none": the memory of the read buffers the pipeline got. */
    String readBuffers() {
        long heap = heapReadBuffers.sum();
        long direct = directReadBuffers.sum();
        return heap == 0 ? direct == 0 ? "none" : "direct" : direct == 0 ? "heap" : "mixed";
    }

    /** Whether {@code t} or a cause of it is an {@link OutOfMemoryError} (Netty's OutOfDirectMemoryError is one). */
    static boolean isOutOfMemory(Throwable t) {
        int depth = 0;
        for (Throwable c = t; c != null && depth < 16; c = c.getCause(), depth++) {
            if (c instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }
}
