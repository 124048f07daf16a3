package io.github.magalloc;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

/**
 * A magalloc buffer: a window {@code [offset, offset + capacity)} of a slab, inside the {@code maxLength} bytes the
 * chunk reserved for it. Capacity may grow in place up to {@code maxLength}; beyond that the buffer moves.
 *
 * <p>Buffer objects are recycled: when the reference count reaches zero the memory goes back to its chunk and the
 * object to its magazine (or to the pool's shared spares when released on another thread). In debug mode objects
 * are never recycled and freed memory is poisoned, so a stale reference fails loudly instead of touching a buffer
 * that now belongs to someone else.
 */
abstract class MagByteBuf extends AbstractReferenceCountedByteBuf {
    static final byte POISON = (byte) 0xDE;

    final MemoryPool pool;
    /** The magazine this object returns to when released on that magazine's thread. */
    Magazine home;
    Chunk chunk;
    /** Segment index in a size-classed chunk, -1 otherwise. */
    int segment;
    /** Start of this buffer in its slab. */
    int offset;
    /** Bytes reserved for this buffer: the most it can grow in place. */
    int maxLength;
    /** The capacity. */
    int length;
    /** Per-object view for NIO calls; never shared between buffer objects (hazard 5). */
    private ByteBuffer tmpNioBuf;

    MagByteBuf(MemoryPool pool) {
        super(0);
        this.pool = pool;
    }

    /** Prepares a fresh or recycled object to represent new memory. */
    final void init(Chunk chunk, int segment, int offset, int maxLength, int capacity, int maxCapacity) {
        setMemory(chunk, segment, offset, maxLength);
        this.length = capacity;
        maxCapacity(maxCapacity);
        resetRefCnt();
        clear();
        markReaderIndex();
        markWriterIndex();
    }

    private void setMemory(Chunk chunk, int segment, int offset, int maxLength) {
        if (this.chunk == null || chunk.slab != slab()) {
            tmpNioBuf = null;
        }
        this.chunk = chunk;
        this.segment = segment;
        this.offset = offset;
        this.maxLength = maxLength;
        onMemoryChanged(chunk.slab);
    }

    private Slab slab() {
        return chunk == null ? null : chunk.slab;
    }

    /** Subclasses cache what they need of the slab (array, buffer, address). */
    abstract void onMemoryChanged(Slab slab);

    /** Copies the first {@code bytes} bytes of this buffer's memory into {@code target}'s. */
    abstract void copyContentTo(MagByteBuf target, int bytes);

    /** Writes {@link #POISON} over all reserved bytes (debug mode, before the memory is given back). */
    abstract void poison();

    abstract ByteBuffer newInternalNioBuffer();

    /** Exchanges memory with {@code other}, which must be of the same class; used when growing. */
    final void swapMemory(MagByteBuf other) {
        Chunk c = chunk;
        int s = segment;
        int o = offset;
        int m = maxLength;
        setMemory(other.chunk, other.segment, other.offset, other.maxLength);
        other.setMemory(c, s, o, m);
        int l = length;
        length = other.length;
        other.length = l;
        tmpNioBuf = null;
        other.tmpNioBuf = null;
    }

    final int idx(int index) {
        return offset + index;
    }

    /**
     * The common case, a count of 1 released once, costs a volatile read and an ordered store instead of Netty's
     * compare-and-swap. A release that comes after it (in program order or through any happens-before edge) reads
     * 0 and throws {@link io.netty.util.IllegalReferenceCountException} as Netty's would. Counts above 1 take
     * Netty's atomic path, so two threads sharing a retained buffer still deallocate exactly once. Only two
     * releases racing on a buffer whose count is 1 (a double release by the caller, without ordering) go
     * unnoticed here; Netty's CAS would catch that one.
     */
    @Override
    public final boolean release() {
        if (refCnt() == 1) {
            setRefCnt(0);
            deallocate();
            return true;
        }
        return super.release();
    }

    @Override
    protected final void deallocate() {
        long threadId = Thread.currentThread().getId();
        if (pool.debug) {
            poison();
            chunk.release(this, threadId);
            return; // never recycled in debug mode: a stale reference keeps seeing refCnt() == 0
        }
        Magazine magazine = home;
        if (magazine.ownerThreadId != threadId && magazine.tryLockAsOwner(threadId)) {
            // A shared magazine's buffer and its lock is free: release as its owner, one CAS instead of two.
            try {
                releaseTo(magazine, threadId);
            } finally {
                magazine.unlockAsOwner();
            }
        } else {
            releaseTo(magazine, threadId);
        }
    }

    /** Memory back to the chunk, this object back to {@code magazine} (locally if the caller owns it). */
    private void releaseTo(Magazine magazine, long threadId) {
        chunk.release(this, threadId);
        if (magazine.ownerThreadId == threadId ? !magazine.recycleLocal(this) : !magazine.returnBufferObject(this)) {
            pool.recycleShared(this);
        }
    }

    // ------------------------------------------------------------------ capacity

    @Override
    public final int capacity() {
        return length;
    }

    @Override
    public final ByteBuf capacity(int newCapacity) {
        if (newCapacity == length) {
            ensureAccessible();
            return this;
        }
        checkNewCapacity(newCapacity);
        if (newCapacity <= maxLength) {
            // In place: the segment already has room, or we shrink and keep it.
            if (newCapacity < length) {
                trimIndicesToCapacity(newCapacity);
            }
            length = newCapacity;
            return this;
        }
        pool.reallocate(this, newCapacity);
        length = newCapacity;
        return this;
    }

    @Override
    public final int maxFastWritableBytes() {
        return Math.min(maxLength, maxCapacity()) - writerIndex();
    }

    @Override
    public final ByteBufAllocator alloc() {
        return pool.allocator;
    }

    @SuppressWarnings("deprecation")
    @Override
    public final ByteOrder order() {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public final ByteBuf unwrap() {
        return null;
    }

    @Override
    public final boolean isContiguous() {
        return true;
    }

    // ------------------------------------------------------------------ NIO views

    @Override
    public final int nioBufferCount() {
        return 1;
    }

    @Override
    public final ByteBuffer[] nioBuffers(int index, int length) {
        return new ByteBuffer[] {nioBuffer(index, length)};
    }

    @Override
    public final ByteBuffer internalNioBuffer(int index, int length) {
        checkIndex(index, length);
        return internalNioBuffer(index, length, false);
    }

    /** A view positioned on {@code [index, index + length)}; a fresh duplicate when it may escape concurrently. */
    final ByteBuffer internalNioBuffer(int index, int length, boolean duplicate) {
        int start = idx(index);
        ByteBuffer buffer;
        if (duplicate) {
            buffer = newInternalNioBuffer();
        } else {
            buffer = tmpNioBuf;
            if (buffer == null) {
                tmpNioBuf = buffer = newInternalNioBuffer();
            } else {
                buffer.clear();
            }
        }
        buffer.limit(start + length).position(start);
        return buffer;
    }

    @Override
    public final int getBytes(int index, GatheringByteChannel out, int length) throws IOException {
        checkIndex(index, length);
        return out.write(internalNioBuffer(index, length, true));
    }

    @Override
    public final int getBytes(int index, FileChannel out, long position, int length) throws IOException {
        checkIndex(index, length);
        return out.write(internalNioBuffer(index, length, true), position);
    }

    @Override
    public final int readBytes(GatheringByteChannel out, int length) throws IOException {
        checkReadableBytes(length);
        int written = out.write(internalNioBuffer(readerIndex(), length, false));
        skipBytes(written);
        return written;
    }

    @Override
    public final int readBytes(FileChannel out, long position, int length) throws IOException {
        checkReadableBytes(length);
        int written = out.write(internalNioBuffer(readerIndex(), length, false), position);
        skipBytes(written);
        return written;
    }

    @Override
    public final int setBytes(int index, ScatteringByteChannel in, int length) throws IOException {
        checkIndex(index, length);
        try {
            return in.read(internalNioBuffer(index, length, false));
        } catch (ClosedChannelException ignored) {
            return -1;
        }
    }

    @Override
    public final int setBytes(int index, FileChannel in, long position, int length) throws IOException {
        checkIndex(index, length);
        try {
            return in.read(internalNioBuffer(index, length, false), position);
        } catch (ClosedChannelException ignored) {
            return -1;
        }
    }
}
