package io.github.magalloc.bench.floor;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

/**
 * The least a recycled pooled {@code ByteBuf} can be: a Netty reference-counted buffer that names a segment of
 * a slab by its index, re-initialised on every allocation with only what must change (segment, capacity, indices,
 * marks, Netty's reference-count reset) and given back on the last release. It has no memory of its own: the
 * floor measures bookkeeping, not bytes. Every data accessor throws, so it cannot be mistaken for a real buffer.
 */
final class FloorByteBuf extends AbstractReferenceCountedByteBuf {
    private final FloorPool pool;
    /** The segment this object represents while it is live. */
    int segment;
    private int capacity;

    FloorByteBuf(FloorPool pool) {
        super(0);
        this.pool = pool;
    }

    /** What every pooled allocator must write when it hands a recycled object out again. */
    void init(int segment, int capacity) {
        this.segment = segment;
        this.capacity = capacity;
        maxCapacity(capacity);
        resetRefCnt();
        clear();
        markReaderIndex();
        markWriterIndex();
    }

    @Override
    protected void deallocate() {
        pool.free(this);
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public boolean isDirect() {
        return true;
    }

    private static UnsupportedOperationException noData() {
        return new UnsupportedOperationException("the floor benchmark's buffer has no memory");
    }

    // Everything below touches data; the floor never does.

    @Override
    public ByteBuf capacity(int newCapacity) {
        throw noData();
    }

    @Override
    public ByteBufAllocator alloc() {
        throw noData();
    }

    @Override
    @Deprecated
    public ByteOrder order() {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public ByteBuf unwrap() {
        return null;
    }

    @Override
    protected byte _getByte(int index) {
        throw noData();
    }

    @Override
    protected short _getShort(int index) {
        throw noData();
    }

    @Override
    protected short _getShortLE(int index) {
        throw noData();
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        throw noData();
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        throw noData();
    }

    @Override
    protected int _getInt(int index) {
        throw noData();
    }

    @Override
    protected int _getIntLE(int index) {
        throw noData();
    }

    @Override
    protected long _getLong(int index) {
        throw noData();
    }

    @Override
    protected long _getLongLE(int index) {
        throw noData();
    }

    @Override
    protected void _setByte(int index, int value) {
        throw noData();
    }

    @Override
    protected void _setShort(int index, int value) {
        throw noData();
    }

    @Override
    protected void _setShortLE(int index, int value) {
        throw noData();
    }

    @Override
    protected void _setMedium(int index, int value) {
        throw noData();
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        throw noData();
    }

    @Override
    protected void _setInt(int index, int value) {
        throw noData();
    }

    @Override
    protected void _setIntLE(int index, int value) {
        throw noData();
    }

    @Override
    protected void _setLong(int index, long value) {
        throw noData();
    }

    @Override
    protected void _setLongLE(int index, long value) {
        throw noData();
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        throw noData();
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        throw noData();
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        throw noData();
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) {
        throw noData();
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int length) {
        throw noData();
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int length) {
        throw noData();
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        throw noData();
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        throw noData();
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        throw noData();
    }

    @Override
    public int setBytes(int index, InputStream in, int length) {
        throw noData();
    }

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int length) {
        throw noData();
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int length) {
        throw noData();
    }

    @Override
    public ByteBuf copy(int index, int length) {
        throw noData();
    }

    @Override
    public int nioBufferCount() {
        return 0;
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        throw noData();
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int length) {
        throw noData();
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int length) {
        throw noData();
    }

    @Override
    public boolean hasArray() {
        return false;
    }

    @Override
    public byte[] array() {
        throw noData();
    }

    @Override
    public int arrayOffset() {
        throw noData();
    }

    @Override
    public boolean hasMemoryAddress() {
        return false;
    }

    @Override
    public long memoryAddress() {
        throw noData();
    }
}
