package io.github.magalloc.compare;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Seeded random pairs checked against a byte-by-byte reference, over every pairing of buffer kinds (heap, direct,
 * composite, sliced, reader index moved, little-endian). The seed is in every failure message.
 */
class ByteBufComparisonTest {
    private static final long SEED = Long.getLong("magalloc.seed", 20240601L);
    private static final int KINDS = 7;
    private static final int[] LARGE = {511, 1024, 4099, 65543};

    /** The reference: first index where they differ, or the shorter length if one is a prefix, or -1. */
    static int refMismatch(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            if (a[i] != b[i]) {
                return i;
            }
        }
        return a.length == b.length ? -1 : n;
    }

    static int refCompare(byte[] a, byte[] b) {
        int m = refMismatch(a, b);
        if (m < 0) {
            return 0;
        }
        if (m == Math.min(a.length, b.length)) {
            return Integer.signum(a.length - b.length);
        }
        return Integer.signum((a[m] & 0xFF) - (b[m] & 0xFF));
    }

    @SuppressWarnings("deprecation") // order(LITTLE_ENDIAN): still how a swapped buffer is made
    static ByteBuf make(int kind, byte[] content, Random r) {
        int len = content.length;
        switch (kind) {
            case 0: { // heap, at an offset inside its array
                byte[] big = new byte[len + 7];
                System.arraycopy(content, 0, big, 3, len);
                return Unpooled.wrappedBuffer(big, 3, len);
            }
            case 1:
                return Unpooled.directBuffer(len).writeBytes(content);
            case 2: { // composite of heap and direct parts of random sizes
                CompositeByteBuf c = Unpooled.compositeBuffer(Integer.MAX_VALUE);
                int i = 0;
                while (i < len) {
                    int n = Math.min(len - i, 1 + r.nextInt(Math.max(1, len / 3 + 1)));
                    ByteBuf part = r.nextBoolean() ? Unpooled.directBuffer(n) : Unpooled.buffer(n);
                    c.addComponent(true, part.writeBytes(content, i, n));
                    i += n;
                }
                return c;
            }
            case 3: { // slice of a larger direct buffer
                ByteBuf big = Unpooled.directBuffer(len + 10).writeZero(5).writeBytes(content).writeZero(5);
                return big.slice(5, len);
            }
            case 4: // heap with a moved reader index
                return Unpooled.buffer(len + 9).writeZero(9).writeBytes(content).readerIndex(9);
            case 5:
                return Unpooled.buffer(len).writeBytes(content).order(ByteOrder.LITTLE_ENDIAN);
            default:
                return Unpooled.directBuffer(len).writeBytes(content).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    private static void check(ByteBuf a, ByteBuf b, byte[] ac, byte[] bc, String ctx) {
        int ri = a.readerIndex();
        int bri = b.readerIndex();
        assertThat(ByteBufComparison.mismatch(a, b)).as(ctx).isEqualTo(refMismatch(ac, bc));
        assertThat(Integer.signum(ByteBufComparison.compare(a, b))).as(ctx).isEqualTo(refCompare(ac, bc));
        assertThat(Integer.signum(ByteBufComparison.compare(b, a))).as(ctx).isEqualTo(refCompare(bc, ac));
        assertThat(ByteBufComparison.equals(a, b)).as(ctx).isEqualTo(refMismatch(ac, bc) < 0);
        assertThat(a.readerIndex()).isEqualTo(ri);
        assertThat(b.readerIndex()).isEqualTo(bri);
    }

    /** For each length and pair of kinds: equal, then the first difference at every position (sampled if large). */
    @Test
    void firstDifferenceAtEveryPosition() {
        Random r = new Random(SEED);
        int[] lengths = IntStream.concat(IntStream.rangeClosed(0, 300), IntStream.of(LARGE)).toArray();
        for (int len : lengths) {
            for (int ka = 0; ka < KINDS; ka++) {
                for (int kb = 0; kb < KINDS; kb++) {
                    byte[] content = new byte[len];
                    r.nextBytes(content);
                    ByteBuf a = make(ka, content, r);
                    ByteBuf b = make(kb, content, r);
                    String ctx = "seed " + SEED + ", length " + len + ", kinds " + ka + "/" + kb;
                    check(a, b, content, content, ctx + ", equal");
                    byte[] changed = content.clone();
                    int step = len <= 300 ? 1 : len / 61;
                    for (int p = 0; p < len; p += p == len - 1 ? 1 : Math.min(step, len - 1 - p)) {
                        byte old = content[p];
                        // half the time flip the top bit, which only an unsigned comparison orders correctly
                        byte v = r.nextBoolean() ? (byte) (old ^ 0x80) : (byte) (old + 1 + r.nextInt(255));
                        changed[p] = v;
                        b.setByte(b.readerIndex() + p, v);
                        check(a, b, content, changed, ctx + ", differ at " + p + ": " + (old & 0xFF) + " vs " + (v & 0xFF));
                        changed[p] = old;
                        b.setByte(b.readerIndex() + p, old);
                    }
                    a.release();
                    b.release();
                }
            }
        }
    }

    @Test
    void equalPrefixesOfDifferentLengths() {
        Random r = new Random(SEED + 1);
        for (int i = 0; i < 2000; i++) {
            int la = r.nextInt(i < 1000 ? 80 : 5000);
            int lb = r.nextInt(i < 1000 ? 80 : 5000);
            byte[] content = new byte[Math.max(la, lb)];
            r.nextBytes(content);
            byte[] ac = java.util.Arrays.copyOf(content, la);
            byte[] bc = java.util.Arrays.copyOf(content, lb);
            ByteBuf a = make(r.nextInt(KINDS), ac, r);
            ByteBuf b = make(r.nextInt(KINDS), bc, r);
            check(a, b, ac, bc, "seed " + (SEED + 1) + ", case " + i + ", lengths " + la + "/" + lb);
            a.release();
            b.release();
        }
    }

    @Test
    void rangesOfBuffersAndArrays() {
        Random r = new Random(SEED + 2);
        for (int i = 0; i < 3000; i++) {
            int len = r.nextInt(i < 2000 ? 100 : 3000);
            byte[] x = new byte[len + 20];
            r.nextBytes(x);
            byte[] y = x.clone();
            if (len > 0 && r.nextBoolean()) {
                y[10 + r.nextInt(len)] ^= (byte) (1 << r.nextInt(8));
            }
            int ax = r.nextInt(11);
            int bx = r.nextInt(11);
            int shift = bx - ax; // compare x[ax..] with y[bx..] after lining up their contents
            byte[] yShifted = new byte[y.length + Math.max(0, shift)];
            System.arraycopy(y, 0, yShifted, Math.max(0, shift), y.length);
            int from = 10;
            String ctx = "seed " + (SEED + 2) + ", case " + i;
            byte[] ac = java.util.Arrays.copyOfRange(x, from, from + len);
            byte[] bc = java.util.Arrays.copyOfRange(yShifted, from + Math.max(0, shift), from + Math.max(0, shift) + len);
            int expected = refMismatch(ac, bc);
            assertThat(ByteBufComparison.mismatch(x, from, yShifted, from + Math.max(0, shift), len)).as(ctx)
                    .isEqualTo(expected);
            assertThat(Integer.signum(ByteBufComparison.compare(x, from, from + len, yShifted,
                    from + Math.max(0, shift), from + Math.max(0, shift) + len))).as(ctx).isEqualTo(refCompare(ac, bc));
            ByteBuf a = make(r.nextInt(KINDS), x, r);
            ByteBuf b = make(r.nextInt(KINDS), yShifted, r);
            int ai = a.readerIndex() + from;
            int bi = b.readerIndex() + from + Math.max(0, shift);
            assertThat(ByteBufComparison.mismatch(a, ai, b, bi, len)).as(ctx).isEqualTo(expected);
            assertThat(ByteBufComparison.equals(a, ai, b, bi, len)).as(ctx).isEqualTo(expected < 0);
            int shorter = len == 0 ? 0 : r.nextInt(len);
            assertThat(Integer.signum(ByteBufComparison.compare(a, ai, len, b, bi, shorter))).as(ctx)
                    .isEqualTo(refCompare(ac, java.util.Arrays.copyOf(bc, shorter)));
            a.release();
            b.release();
        }
    }

    @Test
    void rejectsRangesOutsideTheBufferAndReleasedBuffers() {
        List<ByteBuf> bufs = new ArrayList<>();
        Random r = new Random(SEED + 3);
        for (int kind = 0; kind < KINDS; kind++) {
            bufs.add(make(kind, new byte[100], r));
        }
        for (ByteBuf a : bufs) {
            for (ByteBuf b : bufs) {
                for (int len : new int[] {8, 100}) {
                    // a slice must never expose its neighbours in the backing array or memory
                    assertThatThrownBy(() -> ByteBufComparison.mismatch(a, a.capacity() - len + 1, b, 0, len))
                            .isInstanceOf(IndexOutOfBoundsException.class);
                    assertThatThrownBy(() -> ByteBufComparison.mismatch(a, 0, b, -1, len))
                            .isInstanceOf(IndexOutOfBoundsException.class);
                }
                assertThatThrownBy(() -> ByteBufComparison.mismatch(a, 0, b, 0, -1))
                        .isInstanceOf(IndexOutOfBoundsException.class);
            }
        }
        for (int len : new int[] {8, 100}) {
            ByteBuf heap = Unpooled.buffer(len).writeZero(len);
            ByteBuf direct = Unpooled.directBuffer(len).writeZero(len);
            ByteBuf live = Unpooled.buffer(len).writeZero(len);
            ByteBuf liveDirect = Unpooled.directBuffer(len).writeZero(len);
            heap.release();
            direct.release();
            // a released unpooled heap buffer reports capacity 0, so the range check may fire first: either way,
            // nothing is read from freed memory
            assertThatThrownBy(() -> ByteBufComparison.equals(heap, live))
                    .isInstanceOfAny(IllegalReferenceCountException.class, IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> ByteBufComparison.equals(live, direct))
                    .isInstanceOfAny(IllegalReferenceCountException.class, IndexOutOfBoundsException.class);
            // both direct: the memory-address loop must refuse freed memory too
            assertThatThrownBy(() -> ByteBufComparison.equals(liveDirect, direct))
                    .isInstanceOfAny(IllegalReferenceCountException.class, IndexOutOfBoundsException.class);
            liveDirect.release();
        }
        bufs.forEach(ByteBuf::release);
    }
}
