package io.github.magalloc.buffer;

import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One block of memory taken from the system: a {@code byte[]} for heap pools, a direct {@link ByteBuffer} for
 * direct pools. The allocator cuts slabs into buffers' memory and keeps empty ones for reuse.
 *
 * <p>The direct {@link #buffer} is shared by every buffer cut from the slab, used by their threads at the same
 * time, so it is used with absolute operations only: its position and limit are never changed (a relative
 * operation on one thread would move them under another's feet), and it needs no copy per buffer and no lock.
 */
public final class Slab {
    /** What the slab counts for: in the pool's accounting, the reuse pool's buckets, the limit's checks. */
    public final int size;
    /**
     * Bytes buffers can be cut from: {@link #size}, but a heap slab for chunks of {@link #HEAP_CUT_FROM} bytes or more
     * is an array header shorter ({@link #heapForChunks}).
     */
    public final int capacity;
    final byte[] array;
    final ByteBuffer buffer;
    /** Whether {@link #address} is known: with Unsafe, or on JDK 22+ where Netty gets it from a memory segment. */
    final boolean hasAddress;
    /** Base address of a direct slab when known; 0 otherwise. */
    public final long address;
    private final CleanableDirectBuffer cleanable;
    /** Neighbours in the {@link LiveSlabs} that holds this slab, guarded by its lock; null outside one. */
    Slab previousLive;
    Slab nextLive;
    /** The slab below this one in the {@link SlabStack} that holds it, guarded by the stack's owner. */
    Slab nextStacked;
    /**
     * What buffers are cut from this slab by now (a chunk), weakly, or null before the first: what an error's report
     * asks for the bytes of live buffers. Weak, as {@link LiveSlabs} holds the slab and the cleaner of a dropped pool
     * holds {@link LiveSlabs}: a strong link to the chunk would reach the pool, which would then never be dropped.
     * Written by the chunk's maker (one reference object per chunk made, never per buffer), read racily by reports.
     */
    WeakReference<BufferMemory> cutBy;

    /**
     * Direct slabs start on a cache line. The system's allocator gives 16-byte alignment, so without this every
     * segment (whose sizes are multiples of 16) sat at the same odd offset in its lines, and the 32-byte moves of a
     * copy or a bulk write split across two lines half the time; which offset a slab got changed from JVM to JVM.
     */
    static final int ALIGNMENT = 64;

    /**
     * Heap slabs for chunks from this size on are an array header shorter than their size. From half a G1 region (1 MiB
     * at least) the collector gives an array regions of its own (a humongous object), the last one whole: a 512 KiB
     * array with its header took a 1 MiB region, a 1 MiB one two, so heap chunks cost up to twice their bytes. A header
     * shorter, array and header fill their regions exactly (ZGC's large pages alike). Below it no collector wastes more
     * than a header, and the chunks keep their round sizes.
     */
    static final int HEAP_CUT_FROM = 512 * 1024;
    /**
     * Bytes a heap slab for chunks leaves to the array's header: the JVM's own base offset of a {@code byte[]} where
     * Netty can read it (16 with compressed class pointers, 12 to 16 with compact object headers, 24 without), else
     * 16; a header shorter than this costs the object alignment's padding, never a region.
     */
    static final int HEAP_ARRAY_HEADER = (int) Math.max(16, PlatformDependent.byteArrayBaseOffset());

    private Slab(int size, byte[] array, CleanableDirectBuffer cleanable) {
        this.size = size;
        this.capacity = array != null ? array.length : size;
        this.array = array;
        this.cleanable = cleanable;
        if (cleanable == null) {
            this.buffer = null;
            this.hasAddress = false;
            this.address = 0;
            return;
        }
        ByteBuffer whole = cleanable.buffer();
        // No padding (a buffer within a line of the int limit, see direct): the slab stays where the system put it.
        int shift = whole.capacity() == size ? 0 : (ALIGNMENT - whole.alignmentOffset(0, ALIGNMENT)) & (ALIGNMENT - 1);
        // Our own view of the aligned part; its position and limit are fixed here and never moved again. One
        // absolute slice, not duplicate-then-slice: one object less of garbage per slab taken from the system (a
        // 1 MiB direct slab taken and freed: 248 -> 184 bytes, Netty's own objects included).
        this.buffer = whole.slice(shift, size).order(ByteOrder.BIG_ENDIAN);
        if (cleanable.hasMemoryAddress()) {
            this.hasAddress = true;
            this.address = cleanable.memoryAddress() + shift;
        } else if (PlatformDependent.hasUnsafe()) {
            this.hasAddress = true;
            this.address = PlatformDependent.directBufferAddress(buffer);
        } else {
            this.hasAddress = false;
            this.address = 0;
        }
    }

    /**
     * A heap slab of exactly {@code size} bytes (one huge buffer's).
     *
     * @param size the slab's size in bytes, 0 or more
     * @return a new slab on a new, uninitialized {@code byte[]} of {@code size} bytes
     */
    public static Slab heap(int size) {
        return new Slab(size, PlatformDependent.allocateUninitializedArray(size), null);
    }

    /**
     * A heap slab of {@code size} bytes to cut chunks from: from {@link #HEAP_CUT_FROM} on, its array is
     * {@link #HEAP_ARRAY_HEADER} bytes shorter, so that with its header it fills the collector's regions exactly
     * ({@link #capacity} says how many bytes are there).
     *
     * @param size the slab's size in bytes, as the pool counts it
     * @return a new slab on a new, uninitialized {@code byte[]} of {@code capacityForChunks(size, false)} bytes
     */
    public static Slab heapForChunks(int size) {
        return new Slab(size, PlatformDependent.allocateUninitializedArray(capacityForChunks(size, false)), null);
    }

    /**
     * Bytes buffers can be cut from in a slab for chunks of {@code size} bytes of that kind of memory.
     *
     * @param size the slab's size in bytes
     * @param direct true for direct memory, false for heap
     * @return {@code size}, or for a heap slab of {@link #HEAP_CUT_FROM} bytes or more, {@code size} less the array
     *         header
     */
    public static int capacityForChunks(int size, boolean direct) {
        return direct || size < HEAP_CUT_FROM ? size : size - HEAP_ARRAY_HEADER;
    }

    /**
     * A direct slab of {@code size} bytes, starting on a cache line where the padding fits.
     *
     * @param size the slab's size in bytes
     * @return a new slab on direct memory of {@link #directRequestBytes directRequestBytes(size)} bytes
     * @throws OutOfMemoryError (from the JDK or Netty's direct memory counter) when direct memory is exhausted
     */
    public static Slab direct(int size) {
        // ALIGNMENT - 1 bytes more would do; a whole line keeps the request a multiple of the line size. A request
        // too close to the int limit for the padding gets none, rather than a negative size (directRequestBytes).
        return new Slab(size, null, allocateDirectMemory((int) directRequestBytes(size)));
    }

    /** Takes direct memory from Netty. */
    @FunctionalInterface
    interface DirectMemory {
        CleanableDirectBuffer allocate(int size, boolean freedAtOnce);
    }

    /**
     * Netty's {@code PlatformDependent.allocateDirect(int, boolean)} of recent 4.2 releases, called with
     * {@code true}: memory that its {@code clean()} frees at once even where that is expensive (on JDK 25 without
     * {@code Unsafe} and native access, a shared arena's close, which the allocator does off the freeing thread),
     * rather than memory that waits for the garbage collector; {@code allocateDirect(int)} on older Netty, which has
     * no other. Found by name, since this class compiles against the oldest Netty, and called directly
     * ({@link DirectCallers}).
     */
    private static final DirectMemory DIRECT_MEMORY = findDirectMemory();

    private static DirectMemory findDirectMemory() {
        DirectMemory older = (size, freedAtOnce) -> PlatformDependent.allocateDirect(size);
        MethodHandle newer;
        try {
            newer = MethodHandles.publicLookup().findStatic(PlatformDependent.class, "allocateDirect",
                MethodType.methodType(CleanableDirectBuffer.class, int.class, boolean.class));
        } catch (ReflectiveOperationException e) {
            return older;
        }
        try {
            return DirectCallers.implement(MethodHandles.lookup(), DirectMemory.class, "allocate", newer);
        } catch (IllegalStateException e) {
            // Not expected (a public static method of a public class). Memory the collector frees where Netty leaves
            // it to the collector, rather than a class that cannot be initialized.
            return older;
        }
    }

    /**
     * Direct memory of {@code size} bytes that its {@code clean()} frees at once wherever Netty can.
     *
     * @param size the bytes to allocate
     * @return Netty's handle of the memory, which the caller frees with {@code clean()}
     * @throws OutOfMemoryError when direct memory is exhausted
     */
    public static CleanableDirectBuffer allocateDirectMemory(int size) {
        return DIRECT_MEMORY.allocate(size, true);
    }

    /**
     * The object whose collection frees this direct slab's memory where Netty leaves that to the garbage collector
     * (the direct {@link ByteBuffer} Netty allocated); null for a heap slab.
     *
     * @return the direct buffer that owns the memory, or null for a heap slab
     */
    public Object memoryOwner() {
        return cleanable == null ? null : cleanable.buffer();
    }

    /**
     * Bytes {@link #direct} asks Netty for, for a slab of {@code size}: what the direct memory counters charge.
     *
     * @param size the slab's size in bytes
     * @return {@code size} plus 64 bytes of alignment padding, or {@code size} alone if that would pass
     *         {@link Integer#MAX_VALUE}
     */
    public static long directRequestBytes(int size) {
        return (long) size + (size <= Integer.MAX_VALUE - ALIGNMENT ? ALIGNMENT : 0);
    }

    /** The memory handle of a direct slab (Netty's); null for a heap slab. */
    CleanableDirectBuffer cleanable() {
        return cleanable;
    }

    /**
     * Bytes of live buffers in this slab now (racy; for an error's report).
     *
     * @return the bytes its chunk counts, or 0 before a chunk is cut from it or once that chunk is collected
     */
    public long liveBufferBytes() {
        WeakReference<BufferMemory> link = cutBy;
        BufferMemory memory = link == null ? null : link.get();
        return memory == null ? 0 : memory.liveBufferBytes();
    }

    /**
     * Writes {@code value} over {@code length} bytes from {@code offset} (debug mode's poison).
     *
     * @param offset the first byte, from the slab's start
     * @param length the number of bytes
     * @param value the byte to write
     */
    public void fill(int offset, int length, byte value) {
        if (array != null) {
            Arrays.fill(array, offset, offset + length, value);
            return;
        }
        for (int i = offset, end = offset + length; i < end; i++) {
            buffer.put(i, value);
        }
    }

    /**
     * The first index of {@code [offset, offset + length)} whose byte is not {@code value} (debug mode).
     *
     * @param offset the first byte to look at, from the slab's start
     * @param length the number of bytes to look at
     * @param value the byte expected
     * @return the offset from the slab's start of the first other byte, or -1 if every byte is {@code value}
     */
    public int firstNot(int offset, int length, byte value) {
        for (int i = offset, end = offset + length; i < end; i++) {
            if ((array != null ? array[i] : buffer.get(i)) != value) {
                return i;
            }
        }
        return -1;
    }

    /** Gives the memory back to the system. Called exactly once, when no buffer can reach the slab any more. */
    public void free() {
        if (cleanable != null) {
            cleanable.clean();
        }
    }
}
