package io.github.magalloc;

import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

import static io.netty.util.internal.ObjectUtil.checkPositive;

/**
 * A magalloc buffer: a window {@code [offset, offset + capacity)} of a slab, inside the {@code maxLength} bytes the
 * chunk reserved for it. Capacity may grow in place up to {@code maxLength}; beyond that the buffer moves.
 *
 * <p>Buffer objects are recycled: when the reference count reaches zero the memory goes back to its chunk and the
 * object to its {@link ObjectHome}: the segment it belongs to (thread magazines' size classes) or the
 * {@link BufferObjectCache} of the thread that allocated it; either way only that thread hands it out again. In debug
 * mode objects are never recycled and freed memory is poisoned, so a stale reference fails loudly.
 *
 * <p>The reference count is a field of this object, not Netty's {@code AbstractReferenceCountedByteBuf}, which
 * (Netty 4.2.x) keeps it in a separate {@code RefCnt} object: one more object per buffer, and one more cache line to
 * miss when a buffer object comes back cold (with thousands of live buffers released in random order, that miss was
 * 10-36% of AllocPattern's time; docs/benchmarks.md, "The reference count in the buffer object"). The contract is
 * Netty's: {@code retain} and {@code release} are compare-and-swap loops, so of two threads releasing the last
 * reference at once exactly one deallocates and the other gets {@link IllegalReferenceCountException}; a released
 * buffer reads count 0.
 */
abstract class MagByteBuf extends AbstractByteBuf {
    static final byte POISON = (byte) 0xDE;
    private static final VarHandle REF_CNT;

    static {
        try {
            REF_CNT = MethodHandles.lookup().findVarHandle(MagByteBuf.class, "refCnt", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final MemoryPool pool;
    /** Where this object goes back when released; see {@link ObjectHome} for the two kinds. */
    final ObjectHome home;
    /** The memory's chunk; null while the object waits in a {@link BufferObjectCache}. */
    Chunk chunk;
    /** Segment index in a size-classed chunk, -1 otherwise. */
    int segment;
    /** Start of this buffer in its slab. */
    int offset;
    /** Bytes reserved for this buffer: the most it can grow in place. */
    int maxLength;
    /** The capacity. */
    int length;
    /** Per-object view for NIO calls: buffers cut from one slab must not share a position and limit. */
    private ByteBuffer tmpNioBuf;
    /**
     * References held: {@code > 0} while handed out, 0 once released (and before the first hand-out). Written by
     * {@link #reuse} (plain: the object is handed out to this thread, and any other thread reaches it through the
     * caller's own hand-over, which publishes the count with the rest of the buffer) and by compare-and-swap in
     * {@link #retain0} and {@link #release0}; read plainly by {@link #refCnt()}.
     */
    private int refCnt;

    MagByteBuf(MemoryPool pool, ObjectHome home) {
        super(0);
        this.pool = pool;
        this.home = home;
    }

    /** Prepares a fresh or recycled object to represent new memory. */
    final void init(Chunk chunk, int segment, int offset, int maxLength, int capacity, int maxCapacity) {
        setMemory(chunk, segment, offset, maxLength);
        reuse(capacity, maxCapacity);
    }

    /**
     * Prepares an object that already represents the memory it is handed out with (a segment's own object, see
     * {@link SizeClassChunk#allocateBound}): only what a user can have changed is reset.
     */
    final void reuse(int capacity, int maxCapacity) {
        this.length = capacity;
        maxCapacity(maxCapacity);
        REF_CNT.set(this, 1);
        clear();
        markReaderIndex();
        markWriterIndex();
    }

    /** Sets the memory this object represents. */
    final void setMemory(Chunk chunk, int segment, int offset, int maxLength) {
        this.chunk = chunk;
        this.segment = segment;
        this.offset = offset;
        this.maxLength = maxLength;
        this.tmpNioBuf = null;
        onMemoryChanged(chunk.slab);
    }

    /** Drops every reference to memory, so an object kept for reuse keeps no freed slab reachable. */
    final void forgetMemory() {
        chunk = null;
        tmpNioBuf = null;
        forgetSlab();
    }

    /** Subclasses cache what they need of the slab (array, buffer, address). */
    abstract void onMemoryChanged(Slab slab);

    /** Subclasses drop what they cached of the slab (see {@link #forgetMemory}). */
    abstract void forgetSlab();

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
    }

    final int idx(int index) {
        return offset + index;
    }

    // ------------------------------------------------------------------ reference count

    /**
     * A plain read, as Netty's own accessibility check ({@code isLiveNonVolatile}): every accessor asks
     * {@code ensureAccessible()}, which calls this, and a volatile read there would keep the JIT from hoisting the
     * check out of a loop. A thread that must see another thread's release orders itself after it the way it must
     * for the buffer's contents (a queue, a lock, a join).
     */
    @Override
    public final int refCnt() {
        return (int) REF_CNT.get(this);
    }

    @Override
    public final ByteBuf retain() {
        return retain0(1);
    }

    @Override
    public final ByteBuf retain(int increment) {
        return retain0(checkPositive(increment, "increment"));
    }

    /** CAS, so a retain racing a release either lands before it (the release does not free) or fails. */
    private ByteBuf retain0(int increment) {
        int count;
        do {
            count = (int) REF_CNT.get(this);
            if (count == 0 || count > Integer.MAX_VALUE - increment) {
                throw new IllegalReferenceCountException(count, increment);
            }
        } while (!REF_CNT.compareAndSet(this, count, count + increment));
        return this;
    }

    @Override
    public final boolean release() {
        return release0(1);
    }

    @Override
    public final boolean release(int decrement) {
        return release0(checkPositive(decrement, "decrement"));
    }

    /**
     * CAS: of two threads taking the count to zero at once (a double release, a caller's bug) exactly one succeeds
     * and deallocates, and the other sees the count below its decrement and throws, so the memory goes back once.
     * The plain read is only a guess; the CAS (a full fence) checks it and makes the loop read again.
     */
    private boolean release0(int decrement) {
        int count;
        do {
            count = (int) REF_CNT.get(this);
            if (count < decrement) {
                throw new IllegalReferenceCountException(count, -decrement);
            }
        } while (!REF_CNT.compareAndSet(this, count, count - decrement));
        if (count != decrement) {
            return false;
        }
        deallocate();
        return true;
    }

    @Override
    public final ByteBuf touch() {
        return this;
    }

    @Override
    public final ByteBuf touch(Object hint) {
        return this;
    }

    /**
     * The count reached zero ({@link #release0}'s compare-and-swap decided which release that was): the memory
     * goes back to its chunk, then the object home.
     */
    private void deallocate() {
        long threadId = Thread.currentThread().getId();
        if (pool.debug) {
            poison();
        }
        chunk.release(this, threadId);
        recycle(threadId);
    }

    /**
     * Frees an object no other code has seen (a reallocation's temporary) without the reference count's atomic:
     * no stale reference to it can exist, so nobody can observe that its count stays 1 while it is free, and the
     * next hand-out resets the count anyway.
     */
    final void freeUnshared() {
        deallocate();
    }

    /** The memory is back with its chunk: the object goes home. */
    final void recycle(long threadId) {
        home.recycle(this, threadId);
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
