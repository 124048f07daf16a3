package io.github.magalloc.stream;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

import java.io.DataOutput;
import java.io.IOException;
import java.io.InputStream;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * A {@link DataOutput} that writes into fixed-size pages taken from a {@link ByteBufAllocator}.
 *
 * <p>This class encodes values into bytes at the current position. Where that position is and how it moves (pages,
 * seeks, the one-comparison fast path) is {@code PageCursor}; bulk copies a page's room at a time are
 * {@code PageCopies}, and character encodings {@code Utf8Encoder}, the superclasses between them; the pages themselves
 * are a {@code PageList}; results are read back by a {@code PageReader}.
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
public final class PagedByteBufOutput extends Utf8Encoder implements DataOutput {
    public static final int DEFAULT_PAGE_SIZE = 16 * 1024;

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
        super(allocator, pageSize, maxSize);
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

    /** Writes the remaining bytes of {@code src} and moves its position to its limit. */
    public void writeBytes(ByteBuffer src) {
        copy(src);
    }

    /** Writes the readable bytes of {@code src} and moves its reader index to its writer index. */
    public void writeBytes(ByteBuf src) {
        int n = src.readableBytes();
        writeBytes(src, src.readerIndex(), n);
        src.skipBytes(n);
    }

    /** Writes {@code src[index, index + len)} without touching its indices; any ByteBuf, composites included. */
    public void writeBytes(ByteBuf src, int index, int len) {
        copy(src, index, len);
    }

    /**
     * Copies {@code in} to its end straight into the pages (through a small scratch array when pages are direct,
     * because an InputStream can only fill arrays). May leave an empty page allocated at the end.
     *
     * @return the number of bytes copied
     */
    public long writeAllFrom(InputStream in) throws IOException {
        return copyAll(in);
    }

    /**
     * Copies {@code ch} straight into the pages until it reports end of stream, or until a read returns 0 bytes
     * (a non-blocking channel with nothing available: call again later).
     *
     * @return the number of bytes copied
     */
    public long writeAllFrom(ReadableByteChannel ch) throws IOException {
        return copyAll(ch);
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
        encodeUtf8(s);
    }

    /** One byte per char, no length; a char above 0x7F becomes {@code '?'}. */
    public void writeAscii(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            writeByte(c < 0x80 ? c : '?');
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
        long bytes = Utf8.modifiedLength(s);
        if (bytes > 0xFFFF) {
            throw new UTFDataFormatException("encoded string too long: " + bytes + " bytes");
        }
        writeShort((int) bytes);
        encodeModifiedUtf8(s);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Values at a position already written (a reserved length prefix, say); position() does not move.

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

    // ---------------------------------------------------------------------------------------------------------------
    // Results.

    /**
     * A read-only, zero-copy view of {@code [0, size())} as it is now (later writes inside that range show through;
     * later appends do not). Valid until {@link #close()} or {@link #detach()}, after which any access throws
     * {@code IllegalReferenceCountException}. Do not release it; do not retain it past close.
     */
    public ByteBuf view() {
        ensureOpen();
        return reader.view(size());
    }

    /**
     * Ends the stream and hands its pages to the caller as one composite buffer of {@code [0, size())}, without
     * copying; releasing it returns the pages to the allocator. Views taken earlier stop working.
     */
    public CompositeByteBuf detach() {
        ensureOpen();
        CompositeByteBuf c = reader.detach(size());
        endDetached();
        return c;
    }

    /** A copy of {@code [0, size())}. */
    public byte[] toByteArray() {
        return reader.toByteArray(size());
    }

    /** An exactly sized heap copy that keeps no page alive: for small results that live long. */
    public ByteBuf compactCopy() {
        return Unpooled.wrappedBuffer(toByteArray());
    }

    /** An exactly sized copy from {@code alloc}. */
    public ByteBuf compactCopy(ByteBufAllocator alloc) {
        return reader.copy(alloc, size());
    }
}
