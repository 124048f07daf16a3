package io.github.magalloc.stream;

import io.netty.buffer.ByteBufAllocator;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Where the next byte of a {@link PagedByteBufOutput} goes, how that place moves (to the next page, by a seek), and
 * the stream's lifecycle. The copies and encodings live in the subclasses; they are subclasses rather than fields so
 * that each write reaches {@code mem}, {@code offset} and {@code limit} directly, without an object in between.
 *
 * <h2>State and invariants</h2>
 * <pre>
 *   pages                     the pages owned by this stream, each exactly pageSize bytes of memory
 *   mem, offset, limit        the current page: the next byte goes to mem[offset]; writable while offset &lt; limit
 *   position()  == pageIndex * pageSize + offset
 *   size()      == max(highWater, position())     (highWater is only updated on cold paths)
 *   no current page (not started, closed, detached)  &lt;=&gt;  mem == null, offset == 0, limit == -1
 * </pre>
 * Because {@code limit} is -1 whenever there is no usable page, every fast path is exactly one comparison of
 * {@code offset} against {@code limit}; "first write", "page full", "closed" and "detached" all fall into the cold
 * path, which sorts them out. {@code limit} is also lowered on the last page allowed by {@code maxSize}.
 */
abstract class PageCursor extends OutputStream {
    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final int DETACHED = 2;

    final PageList pages;
    final PageReader reader;
    private final int pageSize;
    private final int maxSize;

    private int pageIndex;
    ByteBuffer mem;
    int offset;
    int limit = -1;
    private int highWater;
    private int state = OPEN;

    PageCursor(ByteBufAllocator allocator, int pageSize, int maxSize) {
        Objects.requireNonNull(allocator, "allocator");
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be positive: " + pageSize);
        }
        if (maxSize < 0) {
            throw new IllegalArgumentException("maxSize must not be negative: " + maxSize);
        }
        this.pages = new PageList(allocator, pageSize);
        this.reader = new PageReader(pages);
        this.pageSize = pageSize;
        this.maxSize = maxSize;
    }

    public int pageSize() {
        return pageSize;
    }

    public int maxSize() {
        return maxSize;
    }

    /** Where the next byte goes. */
    public int position() {
        ensureOpen();
        return pageIndex * pageSize + offset;
    }

    /** Bytes written so far: one past the furthest position ever reached. */
    public int size() {
        return Math.max(highWater, position());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Positioning.

    /**
     * Moves to {@code position} in {@code [0, maxSize]}. Moving past {@link #size()} zero-fills the gap; moving back
     * keeps everything written (size() does not shrink), and later writes overwrite.
     */
    public void seek(long position) {
        ensureOpen();
        if (position < 0 || position > maxSize) {
            throw new IndexOutOfBoundsException("position " + position + " outside [0, " + maxSize + "]");
        }
        int size = size();
        if (position <= size) {
            moveTo((int) position);
        } else {
            moveTo(size);
            writeZeros((int) position - size);
        }
    }

    /** Moves forward by {@code n} bytes, zero-filling beyond {@link #size()}. */
    public void skip(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("negative skip: " + n);
        }
        seek((long) position() + n);
    }

    /**
     * Skips {@code n} bytes to be filled later with the {@code set*} methods (a length prefix, say).
     *
     * @return the position of the reserved bytes
     */
    public int reserve(int n) {
        int at = position();
        skip(n);
        return at;
    }

    /** Checks that {@code [position, position + width)} was written, moves there and returns where to come back. */
    final int enterSet(int position, int width) {
        int size = size();
        if (position < 0 || position > size - width) {
            throw new IndexOutOfBoundsException(
                    "set of " + width + " bytes at " + position + " outside the written range [0, " + size + ")");
        }
        int back = position();
        moveTo(position);
        return back;
    }

    /** Zeros rather than skipped bytes: pages from a pool hold old data, which must never leak into a result. */
    private void writeZeros(int n) {
        while (n > 0) {
            int chunk = Math.min(n, writableInPage());
            for (int i = 0; i < chunk; i++) {
                mem.put(offset + i, (byte) 0);
            }
            offset += chunk;
            n -= chunk;
        }
    }

    /**
     * Makes {@code position <= size()} current. A position on a page boundary stays at the end of the earlier page,
     * so seeking to the very end (or to maxSize) allocates nothing.
     */
    final void moveTo(int position) {
        highWater = Math.max(highWater, pageIndex * pageSize + offset);
        if (position == 0) {
            if (pages.count() == 0) {
                return;
            }
            selectPage(0);
            return;
        }
        int index = (position - 1) / pageSize;
        selectPage(index);
        offset = position - index * pageSize;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Pages: the cold path.

    /** Bytes left in the current page, moving to the next page first if none are (so the result is positive). */
    final int writableInPage() {
        if (offset >= limit) {
            nextPage();
        }
        return limit - offset;
    }

    /** Makes the next page current: on the first write, when the current page is full, or to report misuse. */
    final void nextPage() {
        if (mem == null) {
            ensureOpen();
            selectPage(0);
        } else {
            selectPage(pageIndex + 1);
        }
        if (offset >= limit) {
            throw new IndexOutOfBoundsException("write past maxSize " + maxSize);
        }
    }

    private void selectPage(int index) {
        long start = (long) index * pageSize;
        if (start > maxSize || (start == maxSize && index > 0)) {
            throw new IndexOutOfBoundsException("write past maxSize " + maxSize);
        }
        mem = pages.memory(index);
        pageIndex = index;
        offset = 0;
        limit = (int) Math.min(pageSize, maxSize - start);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Lifecycle.

    final void ensureOpen() {
        if (state != OPEN) {
            throw new IllegalStateException(state == CLOSED
                    ? "PagedByteBufOutput is closed"
                    : "PagedByteBufOutput was detached; use the ByteBuf that detach() returned");
        }
    }

    /** Returns the pages and invalidates views. Idempotent; also a no-op after the pages were detached. */
    @Override
    public void close() {
        if (state == OPEN) {
            state = CLOSED;
            releaseAll();
        }
    }

    /** Ends the stream after its used pages were handed to the caller: the rest and the views are released. */
    final void endDetached() {
        state = DETACHED;
        releaseAll();
    }

    /** Leaves the cursor with no current page, so that every write falls into the cold path and fails there. */
    void releaseAll() {
        reader.releaseViews();
        pages.release();
        mem = null;
        offset = 0;
        limit = -1;
    }
}
