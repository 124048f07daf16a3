package io.github.magalloc.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A magalloc buffer in a heap slab ({@code byte[]}); multi-byte access through byte-array view handles. */
final class HeapMagByteBuf extends MagByteBuf {
    private static final VarHandle SHORT_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT_LE =
        MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_LE =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Netty may report memory addresses it can only use through Unsafe; copy through them only if we can too. */
    private static final boolean UNSAFE = PlatformDependent.hasUnsafe();

    private byte[] array;

    HeapMagByteBuf(BufferPool pool, ObjectHome home) {
        super(pool, home);
    }

    @Override
    void onMemoryChanged(Slab slab) {
        array = slab.array;
    }

    @Override
    void forgetSlab() {
        array = null;
    }

    @Override
    public void copyContentTo(MagByteBuf target, int index, int bytes) {
        System.arraycopy(array, offset + index, ((HeapMagByteBuf) target).array, target.offset + index, bytes);
    }

    @Override
    ByteBuffer newInternalNioBuffer() {
        return ByteBuffer.wrap(array);
    }

    @Override
    public boolean isDirect() {
        return false;
    }

    @Override
    public boolean hasArray() {
        return true;
    }

    @Override
    public byte[] array() {
        ensureAccessible();
        return array;
    }

    @Override
    public int arrayOffset() {
        return offset;
    }

    @Override
    public boolean hasMemoryAddress() {
        return false;
    }

    @Override
    public long memoryAddress() {
        throw new UnsupportedOperationException("heap buffer has no memory address");
    }

    // ------------------------------------------------------------------ primitives

    @Override
    protected byte _getByte(int index) {
        return array[idx(index)];
    }

    @Override
    protected short _getShort(int index) {
        return (short) SHORT_BE.get(array, idx(index));
    }

    @Override
    protected short _getShortLE(int index) {
        return (short) SHORT_LE.get(array, idx(index));
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        int i = idx(index);
        return (array[i] & 0xff) << 16 | (array[i + 1] & 0xff) << 8 | array[i + 2] & 0xff;
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        int i = idx(index);
        return array[i] & 0xff | (array[i + 1] & 0xff) << 8 | (array[i + 2] & 0xff) << 16;
    }

    @Override
    protected int _getInt(int index) {
        return (int) INT_BE.get(array, idx(index));
    }

    @Override
    protected int _getIntLE(int index) {
        return (int) INT_LE.get(array, idx(index));
    }

    @Override
    protected long _getLong(int index) {
        return (long) LONG_BE.get(array, idx(index));
    }

    @Override
    protected long _getLongLE(int index) {
        return (long) LONG_LE.get(array, idx(index));
    }

    @Override
    protected void _setByte(int index, int value) {
        array[idx(index)] = (byte) value;
    }

    @Override
    protected void _setShort(int index, int value) {
        SHORT_BE.set(array, idx(index), (short) value);
    }

    @Override
    protected void _setShortLE(int index, int value) {
        SHORT_LE.set(array, idx(index), (short) value);
    }

    @Override
    protected void _setMedium(int index, int value) {
        int i = idx(index);
        array[i] = (byte) (value >>> 16);
        array[i + 1] = (byte) (value >>> 8);
        array[i + 2] = (byte) value;
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        int i = idx(index);
        array[i] = (byte) value;
        array[i + 1] = (byte) (value >>> 8);
        array[i + 2] = (byte) (value >>> 16);
    }

    @Override
    protected void _setInt(int index, int value) {
        INT_BE.set(array, idx(index), value);
    }

    @Override
    protected void _setIntLE(int index, int value) {
        INT_LE.set(array, idx(index), value);
    }

    @Override
    protected void _setLong(int index, long value) {
        LONG_BE.set(array, idx(index), value);
    }

    @Override
    protected void _setLongLE(int index, long value) {
        LONG_LE.set(array, idx(index), value);
    }

    // ------------------------------------------------------------------ bulk transfers

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.capacity());
        if (UNSAFE && dst.hasMemoryAddress()) {
            PlatformDependent.copyMemory(array, idx(index), dst.memoryAddress() + dstIndex, length);
        } else if (dst.hasArray()) {
            getBytes(index, dst.array(), dst.arrayOffset() + dstIndex, length);
        } else {
            dst.setBytes(dstIndex, array, idx(index), length);
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.length);
        System.arraycopy(array, idx(index), dst, dstIndex, length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        int length = dst.remaining();
        checkIndex(index, length);
        dst.put(array, idx(index), length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) throws IOException {
        checkIndex(index, length);
        out.write(array, idx(index), length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.capacity());
        if (UNSAFE && src.hasMemoryAddress()) {
            PlatformDependent.copyMemory(src.memoryAddress() + srcIndex, array, idx(index), length);
        } else if (src.hasArray()) {
            setBytes(index, src.array(), src.arrayOffset() + srcIndex, length);
        } else {
            src.getBytes(srcIndex, array, idx(index), length);
        }
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.length);
        System.arraycopy(src, srcIndex, array, idx(index), length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        int length = src.remaining();
        checkIndex(index, length);
        src.get(array, idx(index), length);
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int length) throws IOException {
        checkIndex(index, length);
        return in.read(array, idx(index), length);
    }

    @Override
    public ByteBuf copy(int index, int length) {
        checkIndex(index, length);
        ByteBuf copy = alloc().heapBuffer(length, maxCapacity());
        return copy.writeBytes(array, idx(index), length);
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        checkIndex(index, length);
        return ByteBuffer.wrap(array, idx(index), length).slice();
    }
}
