package io.github.magalloc.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.util.List;


/**
 * A magalloc buffer: a window {@code [offset, offset + capacity)} of a slab, inside the {@link #reservedBytes()}
 * the allocator reserved for it. Capacity may grow in place up to that; beyond it the buffer moves
 * ({@link BufferPool#reallocate}).
 *
 * <p>Buffer objects are recycled: when the reference count reaches zero the memory goes back to its
 * {@link BufferMemory} and the object to its {@link ObjectHome}. In debug mode freed memory is poisoned, so a stale
 * reference reads garbage instead of live data.
 *
 * <p>The reference count is {@link CountedByteBuf}'s.
 */
public abstract class MagByteBuf extends CountedByteBuf {
    /** The byte debug mode writes over freed memory: a stale read finds it, and a stale write changes it. */
    public static final byte POISON = (byte) 0xDE;
    /**
     * Whether direct buffers go through {@code Unsafe}: Netty has it and the CPU reads unaligned values. Decided
     * here, not in {@link UnsafeDirectMagByteBuf}, so that the subclass is never loaded where it is not used: a
     * loaded subclass would make the JIT treat {@link DirectMagByteBuf}'s methods as overridden.
     */
    private static final boolean UNSAFE_DIRECT = PlatformDependent.hasUnsafe() && PlatformDependent.isUnaligned();

    final BufferPool pool;
    /** Where this object goes back when released. */
    private final ObjectHome home;
    /**
     * The thread this object was last handed out on, kept by a home that hands its objects to more than one thread
     * (it decides by it who may be given the object next); null for other homes. Used by the home only.
     */
    private Thread holder;
    /** Where the memory came from and goes back to; null while the object holds no memory. */
    private BufferMemory memory;
    /** Segment index in a size-classed chunk, -1 otherwise. */
    private int segment;
    /** Start of this buffer in its slab. */
    int offset;
    /** Bytes reserved for this buffer: the most it can grow in place. */
    int maxLength;
    /** The capacity. */
    int length;
    /** Per-object view for NIO calls: buffers cut from one slab must not share a position and limit. */
    private ByteBuffer tmpNioBuf;

    MagByteBuf(BufferPool pool, ObjectHome home) {
        this.pool = pool;
        this.home = home;
    }

    /**
     * A new buffer object of {@code pool}'s kind, belonging to {@code home} for life: heap, or direct through
     * {@code Unsafe} where Netty can use it and the CPU reads unaligned values, else through the slab's
     * {@link java.nio.ByteBuffer}.
     *
     * @param pool the pool the object's buffers come from
     * @param home where the object goes back when released
     * @param direct true for a direct buffer object, false for a heap one
     * @return a new object holding no memory yet ({@link #init} gives it some)
     */
    public static MagByteBuf newObject(BufferPool pool, ObjectHome home, boolean direct) {
        if (!direct) {
            return new HeapMagByteBuf(pool, home);
        }
        return UNSAFE_DIRECT ? new UnsafeDirectMagByteBuf(pool, home) : new DirectMagByteBuf(pool, home);
    }

    /**
     * The classes {@link #newObject} makes objects of in this JVM (only the direct one it uses), for initializing them
     * ahead of the first allocation.
     *
     * @return the heap class and the direct class in use, in that order
     */
    public static List<Class<? extends MagByteBuf>> objectClasses() {
        return List.of(HeapMagByteBuf.class, UNSAFE_DIRECT ? UnsafeDirectMagByteBuf.class : DirectMagByteBuf.class);
    }

    /**
     * Prepares a fresh or recycled object to represent new memory: sets the memory, then resets the buffer as
     * {@link #reuse} does.
     *
     * @param memory where the memory comes from and goes back to
     * @param segment the segment index in a size-classed chunk, or -1
     * @param offset the start of the buffer in the slab, in bytes
     * @param maxLength the bytes reserved for the buffer: the most it can grow in place
     * @param capacity the buffer's capacity, at most {@code maxLength}
     * @param maxCapacity the most the buffer may ever grow to
     */
    public final void init(BufferMemory memory, int segment, int offset, int maxLength, int capacity, int maxCapacity) {
        setMemory(memory, segment, offset, maxLength);
        reuse(capacity, maxCapacity);
    }

    /**
     * Prepares an object that already represents the memory it is handed out with (a segment's own object): only
     * what a user can have changed is reset. No atomic: see {@link CountedByteBuf#spRefCnt}.
     *
     * @param capacity the buffer's capacity, at most its reserved bytes
     * @param maxCapacity the most the buffer may ever grow to
     */
    public final void reuse(int capacity, int maxCapacity) {
        this.length = capacity;
        maxCapacity(maxCapacity);
        spRefCnt(1);
        clear();
        markReaderIndex();
        markWriterIndex();
    }

    /**
     * Sets the memory this object represents; capacity, indices and reference count are left as they are.
     *
     * @param memory where the memory comes from and goes back to
     * @param segment the segment index in a size-classed chunk, or -1
     * @param offset the start of the buffer in the slab, in bytes
     * @param maxLength the bytes reserved for the buffer: the most it can grow in place
     */
    public final void setMemory(BufferMemory memory, int segment, int offset, int maxLength) {
        this.segment = segment;
        this.offset = offset;
        this.maxLength = maxLength;
        this.tmpNioBuf = null;
        // Each reference stored into an object the collector has promoted costs a card mark: none for the same chunk.
        if (this.memory != memory) {
            this.memory = memory;
            onMemoryChanged(memory.slab);
        } else {
            onOffsetChanged(memory.slab);
        }
    }

    /** Drops every reference to memory, so an object kept for reuse keeps no freed slab reachable. */
    public final void forgetMemory() {
        memory = null;
        tmpNioBuf = null;
        forgetSlab();
    }

    /**
     * Where this object's memory came from.
     *
     * @return the memory, or null while the object holds none
     */
    public final BufferMemory memory() {
        return memory;
    }

    /**
     * The segment of a size-classed chunk this object's memory is.
     *
     * @return the segment index, or -1 for memory that is not a segment (large and huge buffers)
     */
    public final int segment() {
        return segment;
    }

    /**
     * Start of this buffer's memory in its slab.
     *
     * @return the offset in bytes
     */
    public final int offset() {
        return offset;
    }

    /**
     * Bytes reserved for this buffer: the most it can grow in place.
     *
     * @return the reserved bytes, at least the capacity
     */
    public final int reservedBytes() {
        return maxLength;
    }

    /**
     * Where this object goes back when it is released.
     *
     * @return the home, fixed for the object's life
     */
    public final ObjectHome home() {
        return home;
    }

    /**
     * The thread this object was last handed out on, for homes that keep it ({@link #holder}).
     *
     * @return that thread, or null if the home keeps none or cleared it
     */
    public final Thread holder() {
        return holder;
    }

    /**
     * Sets the thread this object was last handed out on; used by the object's home only.
     *
     * @param thread that thread, or null to clear it
     */
    public final void setHolder(Thread thread) {
        this.holder = thread;
    }

    /** Subclasses cache what they need of the slab (array, buffer, address). */
    abstract void onMemoryChanged(Slab slab);

    /** The offset changed on the same slab: subclasses that cache an address of it move it. */
    void onOffsetChanged(Slab slab) {
    }

    /** Subclasses drop what they cached of the slab (see {@link #forgetMemory}). */
    abstract void forgetSlab();

    /**
     * Copies {@code bytes} bytes from {@code index} of this buffer's memory to the same index of {@code target}'s,
     * of the same class.
     *
     * @param target a buffer object of the same class, whose memory has room for the bytes
     * @param index the index in both buffers to copy from and to
     * @param bytes the number of bytes to copy
     */
    public abstract void copyContentTo(MagByteBuf target, int index, int bytes);

    /** Writes {@link #POISON} over {@code bytes} bytes of the memory from {@code index} (debug mode). */
    final void poison(int index, int bytes) {
        memory.slab.fill(offset + index, bytes, POISON);
    }

    /** Writes {@link #POISON} over all reserved bytes (debug mode, before the memory is given back). */
    final void poison() {
        poison(0, maxLength);
    }

    /**
     * Writes {@link #POISON} over the reserved bytes from {@code index} (debug mode, before they are given back).
     *
     * @param index the first byte to poison, relative to the buffer's start
     */
    public final void poisonTail(int index) {
        poison(index, maxLength - index);
    }

    abstract ByteBuffer newInternalNioBuffer();

    /**
     * Exchanges memory, and capacity, with {@code other}, which must be of the same class; used when the buffer
     * moves.
     *
     * @param other a buffer object of the same class
     */
    public final void swapMemory(MagByteBuf other) {
        BufferMemory c = memory;
        int s = segment;
        int o = offset;
        int m = maxLength;
        setMemory(other.memory, other.segment, other.offset, other.maxLength);
        other.setMemory(c, s, o, m);
        int l = length;
        length = other.length;
        other.length = l;
    }

    final int idx(int index) {
        return offset + index;
    }

    /** The count reached zero: the memory goes back, then the object home. */
    @Override
    final void deallocate() {
        long threadId = Thread.currentThread().getId();
        if (pool.debug) {
            poison();
        }
        memory.release(this, threadId);
        home.recycle(this, threadId);
    }

    /**
     * Frees an object no other code has seen (a reallocation's temporary) without the reference count's atomic:
     * no stale reference to it can exist, so nobody can observe that its count stays 1 while it is free, and the
     * next hand-out resets the count anyway.
     */
    public final void freeUnshared() {
        deallocate();
    }

    // ------------------------------------------------------------------ capacity

    @Override
    public final int capacity() {
        return length;
    }

    /**
     * Grows in place while the reserved bytes allow, else moves to new memory. Shrinks in place, and where memory of
     * at most half the reserved bytes holds the new capacity, gives the rest back ({@link BufferPool#shrink}): the
     * object, its reference count, its indices (cut to the new capacity) and its first {@code newCapacity} bytes
     * stay, as Netty's contract says of a shrink.
     */
    @Override
    public final ByteBuf capacity(int newCapacity) {
        if (newCapacity == length) {
            ensureAccessible();
            return this;
        }
        checkNewCapacity(newCapacity);
        if (newCapacity <= maxLength) {
            if (newCapacity < length) {
                trimIndicesToCapacity(newCapacity);
                if (newCapacity <= maxLength >>> 1) {
                    pool.shrink(this, newCapacity); // only memory of at most half the reservation is worth a move
                }
            }
            length = newCapacity;
            return this;
        }
        pool.reallocate(this, newCapacity);
        length = newCapacity;
        return this;
    }

    /**
     * Keeps the first {@code reservedBytes} of this buffer's memory (a large buffer's pages given back in place by
     * its chunk); the memory's owner calls it, holding what guards the rest.
     *
     * @param reservedBytes the bytes the buffer keeps, whole pages and at least its new capacity
     */
    public final void cutReservation(int reservedBytes) {
        this.maxLength = reservedBytes;
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
