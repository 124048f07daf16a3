package io.github.magalloc.stream;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

import java.io.DataOutput;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A {@link DataOutput} that writes into fixed-size pages taken from a {@link ByteBufAllocator}.
 *
 * <h2>State and invariants</h2>
 * <pre>
 *   pages[0 .. pageCount)     pages owned by this stream, each exactly pageSize bytes of memory
 *   mems[i]                   an NIO view of pages[i], indices 0 .. pageSize, private to this stream
 *   mem, offset, limit        the current page: the next byte goes to mem[offset]; writable while offset &lt; limit
 *   position()  == pageIndex * pageSize + offset
 *   size()      == max(highWater, position())     (highWater is only updated on cold paths)
 *   no current page (not started, closed, detached)  &lt;=&gt;  mem == null, offset == 0, limit == -1
 * </pre>
 * Because {@code limit} is -1 whenever there is no usable page, every fast path is exactly one comparison of
 * {@code offset} against {@code limit}; "first write", "page full", "closed" and "detached" all fall into the cold
 * path, which sorts them out. {@code limit} is also lowered on the last page allowed by {@code maxSize}.
 *
 * <h2>Results</h2>
 * {@link #view()} (zero-copy, read-only, valid until close or detach), {@link #detach()} (zero-copy, the caller
 * owns the pages), {@link #toByteArray()} and {@link #compactCopy()} (copies that outlive the stream).
 *
 * <h2>Unpaired surrogates</h2>
 * {@link #writeString} and the UTF-8 helpers encode an unpaired surrogate as {@code '?'}, exactly as
 * {@code String.getBytes(StandardCharsets.UTF_8)} does; {@link #writeUTF} follows {@link DataOutput} (modified UTF-8,
 * every surrogate as its own 3-byte sequence).
 *
 * <p>Not thread-safe. Bytes skipped over by {@link #seek}/{@link #skip} beyond {@link #size()} read as zero (pages
 * from a pool hold old data, which must never leak into a result).
 */
public final class PagedByteBufOutput extends OutputStream implements DataOutput {
    public static final int DEFAULT_PAGE_SIZE = 16 * 1024;

    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final int DETACHED = 2;
    private static final int SCRATCH_SIZE = 2048;

    private final ByteBufAllocator allocator;
    private final int pageSize;
    private final int maxSize;

    private ByteBuf[] pages = new ByteBuf[4];
    private ByteBuffer[] mems = new ByteBuffer[4];
    private int pageCount;
    private int pageIndex;

    private ByteBuffer mem;
    private int offset;
    private int limit = -1;
    private int highWater;

    private int state = OPEN;
    private List<ByteBuf> views;
    private byte[] scratch;

    /** Pages of {@value #DEFAULT_PAGE_SIZE} bytes from {@link MagazineByteBufAllocator#DEFAULT}. */
    public PagedByteBufOutput() {
        this(MagazineByteBufAllocator.DEFAULT);
    }

    public PagedByteBufOutput(ByteBufAllocator allocator) {
        this(allocator, DEFAULT_PAGE_SIZE);
    }

    public PagedByteBufOutput(ByteBufAllocator allocator, int pageSize) {
        this(allocator, pageSize, Integer.MAX_VALUE);
    }

    /**
     * @param maxSize the largest {@link #size()} allowed; writing past it throws {@link IndexOutOfBoundsException}
     */
    public PagedByteBufOutput(ByteBufAllocator allocator, int pageSize, int maxSize) {
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be positive: " + pageSize);
        }
        if (maxSize < 0) {
            throw new IllegalArgumentException("maxSize must not be negative: " + maxSize);
        }
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
    // Single values. Each fast path: one compare, one store, one field update; the rest is in a *Slow method.

    @Override
    public void write(int b) {
        writeByte(b);
    }

    @Override
    public void writeByte(int v) {
        int o = offset;
        if (o < limit) {
            mem.put(o, (byte) v);
            offset = o + 1;
        } else {
            writeByteSlow(v);
        }
    }

    private void writeByteSlow(int v) {
        nextPage();
        mem.put(offset++, (byte) v);
    }

    @Override
    public void writeBoolean(boolean v) {
        writeByte(v ? 1 : 0);
    }

    @Override
    public void writeShort(int v) {
        int o = offset;
        if (o <= limit - 2) {
            mem.putShort(o, (short) v);
            offset = o + 2;
        } else {
            writeBigEndianSlow(v, 2);
        }
    }

    @Override
    public void writeChar(int v) {
        writeShort(v);
    }

    @Override
    public void writeInt(int v) {
        int o = offset;
        if (o <= limit - 4) {
            mem.putInt(o, v);
            offset = o + 4;
        } else {
            writeBigEndianSlow(v, 4);
        }
    }

    @Override
    public void writeLong(long v) {
        int o = offset;
        if (o <= limit - 8) {
            mem.putLong(o, v);
            offset = o + 8;
        } else {
            writeBigEndianSlow(v, 8);
        }
    }

    @Override
    public void writeFloat(float v) {
        writeInt(Float.floatToIntBits(v));
    }

    @Override
    public void writeDouble(double v) {
        writeLong(Double.doubleToLongBits(v));
    }

    public void writeShortLE(int v) {
        writeShort(Short.reverseBytes((short) v));
    }

    public void writeIntLE(int v) {
        writeInt(Integer.reverseBytes(v));
    }

    public void writeLongLE(long v) {
        writeLong(Long.reverseBytes(v));
    }

    /** Like {@link #writeFloat}, NaNs are canonicalised ({@link Float#floatToIntBits}). */
    public void writeFloatLE(float v) {
        writeIntLE(Float.floatToIntBits(v));
    }

    public void writeDoubleLE(double v) {
        writeLongLE(Double.doubleToLongBits(v));
    }

    /** The low {@code bytes} bytes of {@code v}, most significant first, across a page end. */
    private void writeBigEndianSlow(long v, int bytes) {
        for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
            writeByte((int) (v >>> shift));
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Variable-length integers: LEB128, 7 bits per byte, least significant group first, high bit = "more follows".

    /** Unsigned LEB128: 1 byte below 128, 5 bytes for negative values. */
    public void writeVInt(int v) {
        int o = offset;
        if (o <= limit - 5) {
            ByteBuffer m = mem;
            while ((v & ~0x7F) != 0) {
                m.put(o++, (byte) (v | 0x80));
                v >>>= 7;
            }
            m.put(o++, (byte) v);
            offset = o;
        } else {
            writeVLongSlow(v & 0xFFFF_FFFFL);
        }
    }

    /** Unsigned LEB128: up to 10 bytes (negative values take 10). */
    public void writeVLong(long v) {
        int o = offset;
        if (o <= limit - 10) {
            ByteBuffer m = mem;
            while ((v & ~0x7FL) != 0) {
                m.put(o++, (byte) (v | 0x80));
                v >>>= 7;
            }
            m.put(o++, (byte) v);
            offset = o;
        } else {
            writeVLongSlow(v);
        }
    }

    private void writeVLongSlow(long v) {
        while ((v & ~0x7FL) != 0) {
            writeByte((int) (v | 0x80));
            v >>>= 7;
        }
        writeByte((int) v);
    }

    /** Zigzag then LEB128, so small negative numbers are short too: 0, -1, 1, -2 ... map to 0, 1, 2, 3 ... */
    public void writeZInt(int v) {
        writeVInt((v << 1) ^ (v >> 31));
    }

    public void writeZLong(long v) {
        writeVLong((v << 1) ^ (v >> 63));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Bulk bytes.

    @Override
    public void write(byte[] b) {
        writeBytes(b, 0, b.length);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        writeBytes(b, off, len);
    }

    public void writeBytes(byte[] b) {
        writeBytes(b, 0, b.length);
    }

    public void writeBytes(byte[] b, int off, int len) {
        int o = offset;
        if (len <= limit - o) { // limit is -1 without a page, so this also sends len == 0 to the checks
            mem.put(o, b, off, len);
            offset = o + len;
        } else {
            writeBytesSlow(b, off, len);
        }
    }

    private void writeBytesSlow(byte[] b, int off, int len) {
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

    /** Writes the remaining bytes of {@code src} and moves its position to its limit. */
    public void writeBytes(ByteBuffer src) {
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

    /** Writes the readable bytes of {@code src} and moves its reader index to its writer index. */
    public void writeBytes(ByteBuf src) {
        int n = src.readableBytes();
        writeBytes(src, src.readerIndex(), n);
        src.skipBytes(n);
    }

    /** Writes {@code src[index, index + len)} without touching its indices; any ByteBuf, composites included. */
    public void writeBytes(ByteBuf src, int index, int len) {
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

    /**
     * Copies {@code in} to its end straight into the pages (through a small scratch array when pages are direct,
     * because an InputStream can only fill arrays). May leave an empty page allocated at the end.
     *
     * @return the number of bytes copied
     */
    public long writeAllFrom(InputStream in) throws IOException {
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

    /**
     * Copies {@code ch} straight into the pages until it reports end of stream, or until a read returns 0 bytes
     * (a non-blocking channel with nothing available: call again later).
     *
     * @return the number of bytes copied
     */
    public long writeAllFrom(ReadableByteChannel ch) throws IOException {
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

    /** Bytes left in the current page, moving to the next page first if none are (so the result is positive). */
    private int writableInPage() {
        if (offset >= limit) {
            nextPage();
        }
        return limit - offset;
    }

    private byte[] scratch() {
        byte[] s = scratch;
        if (s == null) {
            s = scratch = new byte[SCRATCH_SIZE];
        }
        return s;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Strings.

    /**
     * UTF-8 with its byte length first as a {@link #writeVInt vint}. Unpaired surrogates become {@code '?'}, as in
     * {@code String.getBytes(UTF_8)}.
     */
    public void writeString(String s) {
        int ascii = Utf8.asciiPrefix(s);
        if (ascii == s.length()) {
            writeVInt(ascii);
            writeAsciiUnchecked(s);
        } else {
            writeVInt(Utf8.encodedLength(s, ascii));
            writeUtf8(s);
        }
    }

    /** UTF-8 bytes of {@code s} with no length; unpaired surrogates become {@code '?'}. */
    public void writeUtf8(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            int o = offset;
            if (c < 0x80 && o < limit) {
                mem.put(o, (byte) c);
                offset = o + 1;
                continue;
            }
            int cp = c;
            if (Character.isSurrogate(c)) {
                char d;
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(d = s.charAt(i + 1))) {
                    cp = Character.toCodePoint(c, d);
                    i++;
                } else {
                    cp = '?';
                }
            }
            writeCodePoint(cp);
        }
    }

    private void writeCodePoint(int cp) {
        int o = offset;
        if (o > limit - 4) {
            writeCodePointSlow(cp);
            return;
        }
        ByteBuffer m = mem;
        if (cp < 0x80) {
            m.put(o++, (byte) cp);
        } else if (cp < 0x800) {
            m.put(o++, (byte) (0xC0 | cp >> 6));
            m.put(o++, (byte) (0x80 | cp & 0x3F));
        } else if (cp < 0x10000) {
            m.put(o++, (byte) (0xE0 | cp >> 12));
            m.put(o++, (byte) (0x80 | cp >> 6 & 0x3F));
            m.put(o++, (byte) (0x80 | cp & 0x3F));
        } else {
            m.put(o++, (byte) (0xF0 | cp >> 18));
            m.put(o++, (byte) (0x80 | cp >> 12 & 0x3F));
            m.put(o++, (byte) (0x80 | cp >> 6 & 0x3F));
            m.put(o++, (byte) (0x80 | cp & 0x3F));
        }
        offset = o;
    }

    private void writeCodePointSlow(int cp) {
        if (cp < 0x80) {
            writeByte(cp);
        } else if (cp < 0x800) {
            writeByte(0xC0 | cp >> 6);
            writeByte(0x80 | cp & 0x3F);
        } else if (cp < 0x10000) {
            writeByte(0xE0 | cp >> 12);
            writeByte(0x80 | cp >> 6 & 0x3F);
            writeByte(0x80 | cp & 0x3F);
        } else {
            writeByte(0xF0 | cp >> 18);
            writeByte(0x80 | cp >> 12 & 0x3F);
            writeByte(0x80 | cp >> 6 & 0x3F);
            writeByte(0x80 | cp & 0x3F);
        }
    }

    /** One byte per char, no length; a char above 0x7F becomes {@code '?'}. */
    public void writeAscii(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            writeByte(c < 0x80 ? c : '?');
        }
    }

    /** {@code s} is known to be all ASCII: copy it a page chunk at a time with the JDK's array copy. */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the low byte of each char, no encoder
    private void writeAsciiUnchecked(String s) {
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

    /** {@link DataOutput#writeBytes}: the low byte of each char. */
    @Override
    public void writeBytes(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            writeByte(s.charAt(i));
        }
    }

    @Override
    public void writeChars(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            writeChar(s.charAt(i));
        }
    }

    /** {@link DataOutput#writeUTF}: a 2-byte length, then modified UTF-8 (as {@code DataOutputStream}). */
    @Override
    public void writeUTF(String s) throws UTFDataFormatException {
        int n = s.length();
        long bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x800) {
                bytes += 2;
            } else if (c >= 0x80 || c == 0) {
                bytes += 1;
            }
        }
        if (bytes > 0xFFFF) {
            throw new UTFDataFormatException("encoded string too long: " + bytes + " bytes");
        }
        writeShort((int) bytes);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c != 0 && c < 0x80) {
                writeByte(c);
            } else if (c < 0x800) {
                writeByte(0xC0 | c >> 6);
                writeByte(0x80 | c & 0x3F);
            } else {
                writeByte(0xE0 | c >> 12);
                writeByte(0x80 | c >> 6 & 0x3F);
                writeByte(0x80 | c & 0x3F);
            }
        }
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

    public void setByte(int position, int v) {
        int back = enterSet(position, 1);
        writeByte(v);
        moveTo(back);
    }

    public void setShort(int position, int v) {
        int back = enterSet(position, 2);
        writeShort(v);
        moveTo(back);
    }

    public void setInt(int position, int v) {
        int back = enterSet(position, 4);
        writeInt(v);
        moveTo(back);
    }

    public void setIntLE(int position, int v) {
        setInt(position, Integer.reverseBytes(v));
    }

    public void setLong(int position, long v) {
        int back = enterSet(position, 8);
        writeLong(v);
        moveTo(back);
    }

    public void setLongLE(int position, long v) {
        setLong(position, Long.reverseBytes(v));
    }

    /** Checks that {@code [position, position + width)} was written, moves there and returns where to come back. */
    private int enterSet(int position, int width) {
        int size = size();
        if (position < 0 || position > size - width) {
            throw new IndexOutOfBoundsException(
                    "set of " + width + " bytes at " + position + " outside the written range [0, " + size + ")");
        }
        int back = position();
        moveTo(position);
        return back;
    }

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
    private void moveTo(int position) {
        highWater = Math.max(highWater, pageIndex * pageSize + offset);
        if (position == 0) {
            if (pageCount == 0) {
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

    /** Makes the next page current: on the first write, when the current page is full, or to report misuse. */
    private void nextPage() {
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
        while (pageCount <= index) {
            addPage();
        }
        pageIndex = index;
        mem = mems[index];
        offset = 0;
        limit = (int) Math.min(pageSize, maxSize - start);
    }

    private void addPage() {
        ByteBuf page = allocator.buffer(pageSize, pageSize);
        ByteBuffer m;
        try {
            if (page.capacity() < pageSize || page.nioBufferCount() != 1) {
                throw new IllegalStateException("allocator returned a page that is not " + pageSize
                        + " contiguous bytes: " + page);
            }
            m = page.nioBuffer(0, pageSize).order(ByteOrder.BIG_ENDIAN);
        } catch (RuntimeException e) {
            page.release();
            throw e;
        }
        if (pageCount == pages.length) {
            pages = Arrays.copyOf(pages, pageCount * 2);
            mems = Arrays.copyOf(mems, pageCount * 2);
        }
        pages[pageCount] = page;
        mems[pageCount] = m;
        pageCount++;
    }

    private void ensureOpen() {
        if (state != OPEN) {
            throw new IllegalStateException(state == CLOSED
                    ? "PagedByteBufOutput is closed"
                    : "PagedByteBufOutput was detached; use the ByteBuf that detach() returned");
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Results.

    /** Pages holding bytes of {@code [0, size)}. */
    private int usedPages(int size) {
        return (int) (((long) size + pageSize - 1) / pageSize);
    }

    private int bytesInPage(int index, int size) {
        return (int) Math.min(pageSize, size - (long) index * pageSize);
    }

    /**
     * A read-only, zero-copy view of {@code [0, size())} as it is now (later writes inside that range show through;
     * later appends do not). Valid until {@link #close()} or {@link #detach()}, after which any access throws
     * {@code IllegalReferenceCountException}. Do not release it; do not retain it past close.
     */
    public ByteBuf view() {
        ensureOpen();
        int size = size();
        int used = usedPages(size);
        CompositeByteBuf c = new CompositeByteBuf(allocator, used > 0 && pages[0].isDirect(), Math.max(1, used));
        for (int i = 0; i < used; i++) {
            c.addComponent(true, pages[i].retainedSlice(0, bytesInPage(i, size)));
        }
        if (views == null) {
            views = new ArrayList<>();
        }
        views.add(c);
        return c.asReadOnly();
    }

    /**
     * Ends the stream and hands its pages to the caller as one composite buffer of {@code [0, size())}, without
     * copying; releasing it returns the pages to the allocator. Views taken earlier stop working.
     */
    public CompositeByteBuf detach() {
        ensureOpen();
        int size = size();
        int used = usedPages(size);
        CompositeByteBuf c = new CompositeByteBuf(allocator, used > 0 && pages[0].isDirect(), Math.max(1, used));
        for (int i = 0; i < used; i++) {
            ByteBuf page = pages[i];
            page.setIndex(0, bytesInPage(i, size));
            pages[i] = null;
            c.addComponent(true, page);
        }
        state = DETACHED;
        releaseAll();
        return c;
    }

    /** A copy of {@code [0, size())}. */
    public byte[] toByteArray() {
        int size = size();
        byte[] out = new byte[size];
        for (int i = 0, used = usedPages(size); i < used; i++) {
            mems[i].get(0, out, i * pageSize, bytesInPage(i, size));
        }
        return out;
    }

    /** An exactly sized heap copy that keeps no page alive: for small results that live long. */
    public ByteBuf compactCopy() {
        return Unpooled.wrappedBuffer(toByteArray());
    }

    /** An exactly sized copy from {@code alloc}. */
    public ByteBuf compactCopy(ByteBufAllocator alloc) {
        int size = size();
        ByteBuf out = alloc.buffer(size, size);
        for (int i = 0, used = usedPages(size); i < used; i++) {
            out.writeBytes(mems[i].slice(0, bytesInPage(i, size)));
        }
        return out;
    }

    /** Returns the pages and invalidates views. Idempotent; also a no-op after {@link #detach()}. */
    @Override
    public void close() {
        if (state == OPEN) {
            state = CLOSED;
            releaseAll();
        }
    }

    private void releaseAll() {
        if (views != null) {
            for (ByteBuf v : views) {
                if (v.refCnt() > 0) { // tolerate a caller who released a view against the advice
                    v.release();
                }
            }
            views = null;
        }
        for (int i = 0; i < pageCount; i++) {
            if (pages[i] != null) {
                pages[i].release();
            }
        }
        pages = null;
        mems = null;
        pageCount = 0;
        mem = null;
        offset = 0;
        limit = -1;
        scratch = null;
    }
}
