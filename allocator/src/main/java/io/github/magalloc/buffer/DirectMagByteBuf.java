package io.github.magalloc.buffer;

import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * A magalloc buffer in a direct slab, accessed through absolute operations on the slab's shared
 * {@link ByteBuffer} (big-endian; little-endian values are byte-swapped). This is the path when Netty cannot use
 * {@code Unsafe}, as on JDK 25+ by default; {@link UnsafeDirectMagByteBuf} overrides the primitives otherwise.
 */
class DirectMagByteBuf extends MagByteBuf {
    private static final int STREAM_COPY_CHUNK = 8192;

    /** The slab's shared buffer, used with absolute operations only (see {@link Slab}). */
    ByteBuffer slabBuffer;
    /** Whether the slab's memory address is known; kept while the object is released, for hasMemoryAddress(). */
    private boolean hasAddress;

    DirectMagByteBuf(BufferPool pool, ObjectHome home) {
        super(pool, home);
    }

    @Override
    void onMemoryChanged(Slab slab) {
        slabBuffer = slab.buffer;
        hasAddress = slab.hasAddress;
    }

    @Override
    void forgetSlab() {
        slabBuffer = null;
    }

    @Override
    public void copyContentTo(MagByteBuf target, int index, int bytes) {
        ((DirectMagByteBuf) target).slabBuffer.put(target.offset + index, slabBuffer, offset + index, bytes);
    }

    @Override
    final ByteBuffer newInternalNioBuffer() {
        return slabBuffer.duplicate();
    }

    @Override
    public final boolean isDirect() {
        return true;
    }

    @Override
    public final boolean hasArray() {
        return false;
    }

    @Override
    public final byte[] array() {
        throw new UnsupportedOperationException("direct buffer");
    }

    @Override
    public final int arrayOffset() {
        throw new UnsupportedOperationException("direct buffer");
    }

    /** Known with Unsafe, and on JDK 22+ without it (Netty then allocates through memory segments). */
    @Override
    public final boolean hasMemoryAddress() {
        return hasAddress;
    }

    @Override
    public final long memoryAddress() {
        ensureAccessible();
        Slab slab = memory().slab;
        if (!slab.hasAddress) {
            throw new UnsupportedOperationException("direct buffer without a known memory address");
        }
        return slab.address + offset;
    }

    // ------------------------------------------------------------------ primitives

    @Override
    protected byte _getByte(int index) {
        return slabBuffer.get(idx(index));
    }

    @Override
    protected short _getShort(int index) {
        return slabBuffer.getShort(idx(index));
    }

    @Override
    protected short _getShortLE(int index) {
        return Short.reverseBytes(slabBuffer.getShort(idx(index)));
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        int i = idx(index);
        return (slabBuffer.get(i) & 0xff) << 16 | (slabBuffer.get(i + 1) & 0xff) << 8 | slabBuffer.get(i + 2) & 0xff;
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        int i = idx(index);
        return slabBuffer.get(i) & 0xff | (slabBuffer.get(i + 1) & 0xff) << 8 | (slabBuffer.get(i + 2) & 0xff) << 16;
    }

    @Override
    protected int _getInt(int index) {
        return slabBuffer.getInt(idx(index));
    }

    @Override
    protected int _getIntLE(int index) {
        return Integer.reverseBytes(slabBuffer.getInt(idx(index)));
    }

    @Override
    protected long _getLong(int index) {
        return slabBuffer.getLong(idx(index));
    }

    @Override
    protected long _getLongLE(int index) {
        return Long.reverseBytes(slabBuffer.getLong(idx(index)));
    }

    @Override
    protected void _setByte(int index, int value) {
        slabBuffer.put(idx(index), (byte) value);
    }

    @Override
    protected void _setShort(int index, int value) {
        slabBuffer.putShort(idx(index), (short) value);
    }

    @Override
    protected void _setShortLE(int index, int value) {
        slabBuffer.putShort(idx(index), Short.reverseBytes((short) value));
    }

    @Override
    protected void _setMedium(int index, int value) {
        int i = idx(index);
        slabBuffer.put(i, (byte) (value >>> 16));
        slabBuffer.put(i + 1, (byte) (value >>> 8));
        slabBuffer.put(i + 2, (byte) value);
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        int i = idx(index);
        slabBuffer.put(i, (byte) value);
        slabBuffer.put(i + 1, (byte) (value >>> 8));
        slabBuffer.put(i + 2, (byte) (value >>> 16));
    }

    @Override
    protected void _setInt(int index, int value) {
        slabBuffer.putInt(idx(index), value);
    }

    @Override
    protected void _setIntLE(int index, int value) {
        slabBuffer.putInt(idx(index), Integer.reverseBytes(value));
    }

    @Override
    protected void _setLong(int index, long value) {
        slabBuffer.putLong(idx(index), value);
    }

    @Override
    protected void _setLongLE(int index, long value) {
        slabBuffer.putLong(idx(index), Long.reverseBytes(value));
    }

    // ------------------------------------------------------------------ bulk transfers

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.capacity());
        if (dst.hasArray()) {
            getBytes(index, dst.array(), dst.arrayOffset() + dstIndex, length);
        } else if (dst.nioBufferCount() > 0) {
            for (ByteBuffer target : dst.nioBuffers(dstIndex, length)) {
                int chunk = target.remaining();
                getBytes(index, target);
                index += chunk;
            }
        } else {
            dst.setBytes(dstIndex, this, index, length);
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.length);
        slabBuffer.get(idx(index), dst, dstIndex, length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        int length = dst.remaining();
        checkIndex(index, length);
        int position = dst.position();
        dst.put(position, slabBuffer, idx(index), length);
        dst.position(position + length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) throws IOException {
        checkIndex(index, length);
        byte[] copy = new byte[Math.min(length, STREAM_COPY_CHUNK)];
        while (length > 0) {
            int n = Math.min(length, copy.length);
            slabBuffer.get(idx(index), copy, 0, n);
            out.write(copy, 0, n);
            index += n;
            length -= n;
        }
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.capacity());
        if (src.hasArray()) {
            setBytes(index, src.array(), src.arrayOffset() + srcIndex, length);
        } else if (src.nioBufferCount() > 0) {
            for (ByteBuffer source : src.nioBuffers(srcIndex, length)) {
                int chunk = source.remaining();
                setBytes(index, source);
                index += chunk;
            }
        } else {
            src.getBytes(srcIndex, this, index, length);
        }
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.length);
        slabBuffer.put(idx(index), src, srcIndex, length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        int length = src.remaining();
        checkIndex(index, length);
        int position = src.position();
        slabBuffer.put(idx(index), src, position, length);
        src.position(position + length);
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int length) throws IOException {
        checkIndex(index, length);
        byte[] copy = new byte[length];
        int read = in.read(copy, 0, length);
        if (read > 0) {
            slabBuffer.put(idx(index), copy, 0, read);
        }
        return read;
    }

    @Override
    public ByteBuf copy(int index, int length) {
        checkIndex(index, length);
        ByteBuf copy = alloc().directBuffer(length, maxCapacity());
        return copy.writeBytes(this, index, length);
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        checkIndex(index, length);
        return slabBuffer.slice(idx(index), length);
    }
}
