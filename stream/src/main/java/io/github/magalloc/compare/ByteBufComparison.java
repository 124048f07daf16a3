package io.github.magalloc.compare;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.internal.PlatformDependent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * Unsigned lexicographic comparison, equality and first mismatch of byte sequences: the readable bytes of any
 * {@link ByteBuf} (heap, direct, composite, sliced, either {@link ByteBuf#order()}), ranges of buffers, and ranges
 * of arrays. Byte order never matters: bytes are compared one by one in index order, as unsigned values.
 *
 * <h2>Strategy</h2>
 * Finding the first mismatch is the core; compare and equals are built on it.
 * <ul>
 *   <li>Both heap: {@link Arrays#mismatch} (a vectorised JDK intrinsic) from {@link #ARRAY_INTRINSIC_MIN} bytes,
 *       below that an 8-bytes-at-a-time loop over the arrays.</li>
 *   <li>Both with a memory address (direct buffers while Netty uses {@code Unsafe}, as on JDK 17) and shorter
 *       than {@link #ADDRESS_LOOP_MAX}: an 8-bytes-at-a-time loop of {@link PlatformDependent#getLong(long)}, with
 *       no view to allocate and no per-read bounds check (the range is checked once).</li>
 *   <li>Otherwise, from {@link #NIO_INTRINSIC_MIN} bytes: {@link ByteBuffer#mismatch} (the same intrinsic) over the
 *       buffers' NIO views, segment by segment for composites. Making the views allocates, which is why short
 *       ranges use an 8-bytes-at-a-time loop of {@link ByteBuf#getLongLE} instead.</li>
 * </ul>
 * Both thresholds come from CompareBenchmark runs that force one strategy (see docs/benchmarks.md).
 */
public final class ByteBufComparison {
    /**
     * Shortest array range for which {@link Arrays#mismatch} beats the 8-byte loop. The system properties exist so
     * the benchmark can force either strategy (0 or a huge value) to measure the crossover; leave them unset.
     */
    static final int ARRAY_INTRINSIC_MIN = Integer.getInteger("magalloc.compare.arrayIntrinsicMin", 16);
    /** Shortest non-array range for which NIO views plus {@link ByteBuffer#mismatch} beat the 8-byte loop. */
    static final int NIO_INTRINSIC_MIN = Integer.getInteger("magalloc.compare.nioIntrinsicMin", 32);
    /** Longest range compared through memory addresses; longer ones use the NIO intrinsic. */
    static final int ADDRESS_LOOP_MAX = Integer.getInteger("magalloc.compare.addressLoopMax", 256);
    private static final boolean ADDRESS_READS = PlatformDependent.hasUnsafe() && PlatformDependent.isUnaligned();

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private ByteBufComparison() {
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Readable bytes of two buffers.

    /**
     * Compares the readable bytes as unsigned values, a shorter sequence that is a prefix of the other being smaller.
     *
     * @return negative, zero or positive
     */
    public static int compare(ByteBuf a, ByteBuf b) {
        return compare(a, a.readerIndex(), a.readableBytes(), b, b.readerIndex(), b.readableBytes());
    }

    public static boolean equals(ByteBuf a, ByteBuf b) {
        int len = a.readableBytes();
        return len == b.readableBytes() && mismatch(a, a.readerIndex(), b, b.readerIndex(), len) < 0;
    }

    /**
     * @return -1 if the readable bytes are equal; else the first index (relative to the reader indices) where they
     *         differ, which is the shorter length when one is a prefix of the other (as {@link Arrays#mismatch})
     */
    public static int mismatch(ByteBuf a, ByteBuf b) {
        int aLen = a.readableBytes();
        int bLen = b.readableBytes();
        int m = mismatch(a, a.readerIndex(), b, b.readerIndex(), Math.min(aLen, bLen));
        return m >= 0 || aLen == bLen ? m : Math.min(aLen, bLen);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Ranges of buffers (absolute indices; reader and writer indices are neither used nor changed).

    public static int compare(ByteBuf a, int aIndex, int aLength, ByteBuf b, int bIndex, int bLength) {
        int m = mismatch(a, aIndex, b, bIndex, Math.min(aLength, bLength));
        if (m < 0) {
            return Integer.compare(aLength, bLength);
        }
        return Integer.compare(a.getUnsignedByte(aIndex + m), b.getUnsignedByte(bIndex + m));
    }

    public static boolean equals(ByteBuf a, int aIndex, ByteBuf b, int bIndex, int length) {
        return mismatch(a, aIndex, b, bIndex, length) < 0;
    }

    /**
     * @return -1 if {@code a[aIndex, aIndex + length)} equals {@code b[bIndex, bIndex + length)}, else the first
     *         relative index where they differ
     */
    public static int mismatch(ByteBuf a, int aIndex, ByteBuf b, int bIndex, int length) {
        Objects.checkFromIndexSize(aIndex, length, a.capacity());
        Objects.checkFromIndexSize(bIndex, length, b.capacity());
        if (a.hasArray() && b.hasArray()) {
            // array() checks that the buffer is still accessible (not released)
            return mismatch(a.array(), a.arrayOffset() + aIndex, b.array(), b.arrayOffset() + bIndex, length);
        }
        if (length < ADDRESS_LOOP_MAX && ADDRESS_READS && a.hasMemoryAddress() && b.hasMemoryAddress()) {
            return mismatchByAddress(a, aIndex, b, bIndex, length);
        }
        if (length < NIO_INTRINSIC_MIN) {
            return mismatchByLongs(a, aIndex, b, bIndex, length);
        }
        int aCount = a.nioBufferCount();
        int bCount = b.nioBufferCount();
        if (aCount == 1 && bCount == 1) {
            return a.nioBuffer(aIndex, length).mismatch(b.nioBuffer(bIndex, length));
        }
        if (aCount < 1 || bCount < 1) { // a buffer with no NIO view
            return mismatchByLongs(a, aIndex, b, bIndex, length);
        }
        return mismatchSegments(a.nioBuffers(aIndex, length), b.nioBuffers(bIndex, length));
    }

    /** 8 bytes at a time through the ByteBuf API; {@code getLongLE} reads in index order whatever the order(). */
    private static int mismatchByLongs(ByteBuf a, int aIndex, ByteBuf b, int bIndex, int length) {
        int i = 0;
        for (; i <= length - 8; i += 8) {
            long x = a.getLongLE(aIndex + i);
            long y = b.getLongLE(bIndex + i);
            if (x != y) {
                return i + (Long.numberOfTrailingZeros(x ^ y) >>> 3); // little-endian: lowest byte = lowest index
            }
        }
        for (; i < length; i++) {
            if (a.getByte(aIndex + i) != b.getByte(bIndex + i)) {
                return i;
            }
        }
        return -1;
    }

    /** 8 bytes at a time straight from memory; the caller checked both ranges against the capacities. */
    private static int mismatchByAddress(ByteBuf a, int aIndex, ByteBuf b, int bIndex, int length) {
        // Reading freed memory through an address could crash the JVM: refuse released buffers, as getLong would.
        if (a.refCnt() == 0 || b.refCnt() == 0) {
            throw new IllegalReferenceCountException(0);
        }
        long x0 = a.memoryAddress() + aIndex;
        long y0 = b.memoryAddress() + bIndex;
        int i = 0;
        for (; i <= length - 8; i += 8) {
            long x = PlatformDependent.getLong(x0 + i);
            long y = PlatformDependent.getLong(y0 + i);
            if (x != y) {
                // Native order: on little-endian machines the lowest byte holds the lowest address.
                long diff = x ^ y;
                return i + ((PlatformDependent.BIG_ENDIAN_NATIVE_ORDER
                    ? Long.numberOfLeadingZeros(diff) : Long.numberOfTrailingZeros(diff)) >>> 3);
            }
        }
        for (; i < length; i++) {
            if (PlatformDependent.getByte(x0 + i) != PlatformDependent.getByte(y0 + i)) {
                return i;
            }
        }
        return -1;
    }

    /** Walks two lists of NIO segments covering the same number of bytes, comparing the overlap of each pair. */
    private static int mismatchSegments(ByteBuffer[] as, ByteBuffer[] bs) {
        int ia = 0;
        int ib = 0;
        int done = 0;
        ByteBuffer x = null;
        ByteBuffer y = null;
        for (;;) {
            while ((x == null || !x.hasRemaining()) && ia < as.length) {
                x = as[ia++];
            }
            while ((y == null || !y.hasRemaining()) && ib < bs.length) {
                y = bs[ib++];
            }
            if (x == null || y == null || !x.hasRemaining() || !y.hasRemaining()) {
                return -1; // both are exhausted together: they cover the same length
            }
            int n = Math.min(x.remaining(), y.remaining());
            int m = x.slice(x.position(), n).mismatch(y.slice(y.position(), n));
            if (m >= 0) {
                return done + m;
            }
            x.position(x.position() + n);
            y.position(y.position() + n);
            done += n;
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Array ranges.

    /** Unsigned lexicographic comparison of {@code a[aFrom, aTo)} and {@code b[bFrom, bTo)}. */
    public static int compare(byte[] a, int aFrom, int aTo, byte[] b, int bFrom, int bTo) {
        return Arrays.compareUnsigned(a, aFrom, aTo, b, bFrom, bTo);
    }

    /** -1 if the ranges are equal, else the first relative index where they differ. */
    public static int mismatch(byte[] a, int aFrom, byte[] b, int bFrom, int length) {
        if (length >= ARRAY_INTRINSIC_MIN) {
            return Arrays.mismatch(a, aFrom, aFrom + length, b, bFrom, bFrom + length);
        }
        Objects.checkFromIndexSize(aFrom, length, a.length);
        Objects.checkFromIndexSize(bFrom, length, b.length);
        int i = 0;
        for (; i <= length - 8; i += 8) {
            long x = (long) LONG_LE.get(a, aFrom + i);
            long y = (long) LONG_LE.get(b, bFrom + i);
            if (x != y) {
                return i + (Long.numberOfTrailingZeros(x ^ y) >>> 3);
            }
        }
        for (; i < length; i++) {
            if (a[aFrom + i] != b[bFrom + i]) {
                return i;
            }
        }
        return -1;
    }
}
