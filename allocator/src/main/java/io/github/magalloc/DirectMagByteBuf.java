package io.github.magalloc;

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

    ByteBuffer memory;
    /** Whether the slab's memory address is known; kept while the object is released, for hasMemoryAddress(). */
    private boolean hasAddress;

    DirectMagByteBuf(MemoryPool pool, ObjectHome home) {
        super(pool, home);
    }

    @Override
    void onMemoryChanged(Slab slab) {
        memory = slab.buffer;
        hasAddress = slab.hasAddress;
    }

    @Override
    void forgetSlab() {
        memory = null;
    }

    @Override
    void copyContentTo(MagByteBuf target, int bytes) {
        ((DirectMagByteBuf) target).memory.put(target.offset, memory, offset, bytes);
    }

    @Override
    final void poison() {
        for (int i = 0; i < maxLength; i++) {
            memory.put(offset + i, POISON);
        }
    }

    @Override
    final ByteBuffer newInternalNioBuffer() {
        return memory.duplicate();
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
        if (!chunk.slab.hasAddress) {
            throw new UnsupportedOperationException("direct buffer without a known memory address");
        }
        return chunk.slab.address + offset;
    }

    // ------------------------------------------------------------------ primitives

    @Override
    protected byte _getByte(int index) {
        return memory.get(idx(index));
    }

    @Override
    protected short _getShort(int index) {
        return memory.getShort(idx(index));
    }

    @Override
    protected short _getShortLE(int index) {
        return Short.reverseBytes(memory.getShort(idx(index)));
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        int i = idx(index);
        return (memory.get(i) & 0xff) << 16 | (memory.get(i + 1) & 0xff) << 8 | memory.get(i + 2) & 0xff;
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        int i = idx(index);
        return memory.get(i) & 0xff | (memory.get(i + 1) & 0xff) << 8 | (memory.get(i + 2) & 0xff) << 16;
    }

    @Override
    protected int _getInt(int index) {
        return memory.getInt(idx(index));
    }

    @Override
    protected int _getIntLE(int index) {
        return Integer.reverseBytes(memory.getInt(idx(index)));
    }

    @Override
    protected long _getLong(int index) {
        return memory.getLong(idx(index));
    }

    @Override
    protected long _getLongLE(int index) {
        return Long.reverseBytes(memory.getLong(idx(index)));
    }

    @Override
    protected void _setByte(int index, int value) {
        memory.put(idx(index), (byte) value);
    }

    @Override
    protected void _setShort(int index, int value) {
        memory.putShort(idx(index), (short) value);
    }

    @Override
    protected void _setShortLE(int index, int value) {
        memory.putShort(idx(index), Short.reverseBytes((short) value));
    }

    @Override
    protected void _setMedium(int index, int value) {
        int i = idx(index);
        memory.put(i, (byte) (value >>> 16));
        memory.put(i + 1, (byte) (value >>> 8));
        memory.put(i + 2, (byte) value);
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        int i = idx(index);
        memory.put(i, (byte) value);
        memory.put(i + 1, (byte) (value >>> 8));
        memory.put(i + 2, (byte) (value >>> 16));
    }

    @Override
    protected void _setInt(int index, int value) {
        memory.putInt(idx(index), value);
    }

    @Override
    protected void _setIntLE(int index, int value) {
        memory.putInt(idx(index), Integer.reverseBytes(value));
    }

    @Override
    protected void _setLong(int index, long value) {
        memory.putLong(idx(index), value);
    }

    @Override
    protected void _setLongLE(int index, long value) {
        memory.putLong(idx(index), Long.reverseBytes(value));
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
        memory.get(idx(index), dst, dstIndex, length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        int length = dst.remaining();
        checkIndex(index, length);
        int position = dst.position();
        dst.put(position, memory, idx(index), length);
        dst.position(position + length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) throws IOException {
        checkIndex(index, length);
        byte[] copy = new byte[Math.min(length, STREAM_COPY_CHUNK)];
        while (length > 0) {
            int n = Math.min(length, copy.length);
            memory.get(idx(index), copy, 0, n);
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
        memory.put(idx(index), src, srcIndex, length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        int length = src.remaining();
        checkIndex(index, length);
        int position = src.position();
        memory.put(idx(index), src, position, length);
        src.position(position + length);
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int length) throws IOException {
        checkIndex(index, length);
        byte[] copy = new byte[length];
        int read = in.read(copy, 0, length);
        if (read > 0) {
            memory.put(idx(index), copy, 0, read);
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
        return memory.slice(idx(index), length);
    }
}
