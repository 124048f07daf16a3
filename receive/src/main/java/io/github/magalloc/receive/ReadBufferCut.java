package io.github.magalloc.receive;

import io.netty.buffer.ByteBuf;

/**
 * The rule of the cut: a read buffer that the read filled at most half of is cut to its bytes
 * ({@code capacity(bytesRead)}) before the pipeline sees it, so that a decoder that keeps it, or a slice of it, keeps
 * about the bytes it holds, not the guess. A magalloc buffer then moves to the smallest size class that holds them,
 * or gives its tail pages back in place (docs/design.md, protocol 6a (shrinking)); another allocator's buffer does
 * what its {@code capacity(int)} does (Netty's pooled allocator moves it too). A buffer filled more than half is left
 * as it is: the move would save less than it costs.
 */
final class ReadBufferCut {
    private ReadBufferCut() {
    }

    /**
     * Cuts {@code buf}, into which a read just put {@code bytes} (its writer index moved from 0), down to them if it
     * filled at most half; returns the capacity given back, 0 if none. A read of nothing (end of stream, no data) or
     * a buffer that is not as the read left it is not touched.
     */
    static int afterRead(ByteBuf buf, int bytes) {
        if (bytes <= 0 || buf == null || buf.readerIndex() != 0 || buf.writerIndex() != bytes) {
            return 0;
        }
        int capacity = buf.capacity();
        return bytes <= capacity >>> 1 && cut(buf, bytes) ? capacity - bytes : 0;
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
}
