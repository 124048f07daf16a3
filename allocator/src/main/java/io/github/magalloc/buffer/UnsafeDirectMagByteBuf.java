package io.github.magalloc.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

/**
 * The direct buffer when Netty can use {@code Unsafe} and the CPU allows unaligned access (JDK 17 on x86 and
 * arm64): primitives are plain loads and stores at {@code address + index}, with no bounds check beyond
 * {@link io.netty.buffer.AbstractByteBuf}'s own.
 */
final class UnsafeDirectMagByteBuf extends DirectMagByteBuf {
    private static final boolean NATIVE_BE = PlatformDependent.BIG_ENDIAN_NATIVE_ORDER;

    /**
     * Base address of this buffer. Kept when the object is released (a number keeps no memory reachable), so that
     * a racing stale access touches old memory, as with Netty's own buffers, instead of address 0.
     */
    private long address;

    UnsafeDirectMagByteBuf(BufferPool pool, ObjectHome home) {
        super(pool, home);
    }

    @Override
    void onOffsetChanged(Slab slab) {
        address = slab.address + offset;
    }

    @Override
    void onMemoryChanged(Slab slab) {
        super.onMemoryChanged(slab);
        address = slab.address + offset;
    }

    /** One raw copy: the ByteBuffer path checks bounds and the buffer's scope again on every growth step. */
    @Override
    public void copyContentTo(MagByteBuf target, int index, int bytes) {
        PlatformDependent.copyMemory(address + index, ((UnsafeDirectMagByteBuf) target).address + index, bytes);
    }

    private long addr(int index) {
        return address + index;
    }

    @Override
    protected byte _getByte(int index) {
        return PlatformDependent.getByte(addr(index));
    }

    @Override
    protected short _getShort(int index) {
        short v = PlatformDependent.getShort(addr(index));
        return NATIVE_BE ? v : Short.reverseBytes(v);
    }

    @Override
    protected short _getShortLE(int index) {
        short v = PlatformDependent.getShort(addr(index));
        return NATIVE_BE ? Short.reverseBytes(v) : v;
    }

    @Override
    protected int _getInt(int index) {
        int v = PlatformDependent.getInt(addr(index));
        return NATIVE_BE ? v : Integer.reverseBytes(v);
    }

    @Override
    protected int _getIntLE(int index) {
        int v = PlatformDependent.getInt(addr(index));
        return NATIVE_BE ? Integer.reverseBytes(v) : v;
    }

    @Override
    protected long _getLong(int index) {
        long v = PlatformDependent.getLong(addr(index));
        return NATIVE_BE ? v : Long.reverseBytes(v);
    }

    @Override
    protected long _getLongLE(int index) {
        long v = PlatformDependent.getLong(addr(index));
        return NATIVE_BE ? Long.reverseBytes(v) : v;
    }

    @Override
    protected void _setByte(int index, int value) {
        PlatformDependent.putByte(addr(index), (byte) value);
    }

    @Override
    protected void _setShort(int index, int value) {
        short v = (short) value;
        PlatformDependent.putShort(addr(index), NATIVE_BE ? v : Short.reverseBytes(v));
    }

    @Override
    protected void _setShortLE(int index, int value) {
        short v = (short) value;
        PlatformDependent.putShort(addr(index), NATIVE_BE ? Short.reverseBytes(v) : v);
    }

    @Override
    protected void _setInt(int index, int value) {
        PlatformDependent.putInt(addr(index), NATIVE_BE ? value : Integer.reverseBytes(value));
    }

    @Override
    protected void _setIntLE(int index, int value) {
        PlatformDependent.putInt(addr(index), NATIVE_BE ? Integer.reverseBytes(value) : value);
    }

    @Override
    protected void _setLong(int index, long value) {
        PlatformDependent.putLong(addr(index), NATIVE_BE ? value : Long.reverseBytes(value));
    }

    @Override
    protected void _setLongLE(int index, long value) {
        PlatformDependent.putLong(addr(index), NATIVE_BE ? Long.reverseBytes(value) : value);
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        if (dst.hasMemoryAddress()) {
            checkDstIndex(index, length, dstIndex, dst.capacity());
            PlatformDependent.copyMemory(addr(index), dst.memoryAddress() + dstIndex, length);
            return this;
        }
        return super.getBytes(index, dst, dstIndex, length);
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        if (src.hasMemoryAddress()) {
            checkSrcIndex(index, length, srcIndex, src.capacity());
            PlatformDependent.copyMemory(src.memoryAddress() + srcIndex, addr(index), length);
            return this;
        }
        return super.setBytes(index, src, srcIndex, length);
    }
}
