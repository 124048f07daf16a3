package io.github.magalloc.stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Objects;

/**
 * The bulk writes of a {@link PagedByteBufOutput}: bytes copied into the pages one page's room at a time, from
 * arrays, buffers, streams, channels and ASCII strings. Part of the class chain rather than a helper object for the
 * reason {@code PageCursor} gives: every copy reaches {@code mem}, {@code offset} and {@code limit} directly.
 */
abstract class PageCopies extends PageCursor {
    private static final int SCRATCH_SIZE = 2048;

    private byte[] scratch;

    PageCopies(ByteBufAllocator allocator, int pageSize, int maxSize) {
        super(allocator, pageSize, maxSize);
    }

    /** The cold path of {@code writeBytes}: across pages, and the checks its fast path leaves out. */
    final void writeBytesSlow(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        while (len > 0) {
            int n = Math.min(len, writableInPage());
            mem.put(offset, b, off, n);
            offset += n;
            off += n;
            len -= n;
        }
    }

    /** The remaining bytes of {@code src}; moves its position to its limit. */
    final void copy(ByteBuffer src) {
        ensureOpen();
        int len = src.remaining();
        int from = src.position();
        while (len > 0) {
            int n = Math.min(len, writableInPage());
            mem.put(offset, src, from, n);
            offset += n;
            from += n;
            len -= n;
        }
        src.position(from);
    }

    /** {@code src[index, index + len)}, its indices untouched. */
    final void copy(ByteBuf src, int index, int len) {
        Objects.checkFromIndexSize(index, len, src.capacity());
        ensureOpen();
        while (len > 0) {
            int n = Math.min(len, writableInPage());
            if (mem.hasArray()) {
                src.getBytes(index, mem.array(), mem.arrayOffset() + offset, n);
            } else {
                src.getBytes(index, mem.slice(offset, n));
            }
            offset += n;
            index += n;
            len -= n;
        }
    }

    /** {@code in} to its end, straight into a heap page or through the scratch array into a direct one. */
    final long copyAll(InputStream in) throws IOException {
        ensureOpen();
        long total = 0;
        for (;;) {
            int room = writableInPage();
            int r;
            if (mem.hasArray()) {
                r = in.read(mem.array(), mem.arrayOffset() + offset, room);
            } else {
                byte[] s = scratch();
                r = in.read(s, 0, Math.min(room, s.length));
                if (r > 0) {
                    mem.put(offset, s, 0, r);
                }
            }
            if (r < 0) {
                return total;
            }
            offset += r;
            total += r;
        }
    }

    /** {@code ch} until end of stream or a read of 0 bytes. */
    final long copyAll(ReadableByteChannel ch) throws IOException {
        ensureOpen();
        long total = 0;
        for (;;) {
            int room = writableInPage();
            int r = ch.read(mem.slice(offset, room));
            if (r <= 0) {
                return total;
            }
            offset += r;
            total += r;
        }
    }

    /** {@code s} is known to be all ASCII: copy it a page chunk at a time with the JDK's array copy. */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the low byte of each char, no encoder
    final void writeAsciiUnchecked(String s) {
        int n = s.length();
        int o = offset;
        if (n <= limit - o && mem.hasArray()) {
            s.getBytes(0, n, mem.array(), mem.arrayOffset() + o);
            offset = o + n;
            return;
        }
        ensureOpen();
        for (int i = 0; i < n; ) {
            int chunk = Math.min(n - i, writableInPage());
            if (mem.hasArray()) {
                s.getBytes(i, i + chunk, mem.array(), mem.arrayOffset() + offset);
            } else {
                chunk = Math.min(chunk, SCRATCH_SIZE);
                byte[] t = scratch();
                s.getBytes(i, i + chunk, t, 0);
                mem.put(offset, t, 0, chunk);
            }
            offset += chunk;
            i += chunk;
        }
    }

    private byte[] scratch() {
        byte[] s = scratch;
        if (s == null) {
            s = scratch = new byte[SCRATCH_SIZE];
        }
        return s;
    }

    /** Drops the scratch array too, so a closed stream that stays reachable holds no memory. */
    @Override
    void releaseAll() {
        super.releaseAll();
        scratch = null;
    }
}
