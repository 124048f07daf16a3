package io.github.magalloc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random differential test: the same long random sequence of operations is applied to a magalloc buffer
 * and to Netty's unpooled heap buffer, and contents and indices are compared after every step. A failure names the
 * seed, the step and the operation; rerun one seed with {@code -Dmagalloc.differential.seed=N}.
 */
class DifferentialTest {
    private static final int STEPS = 4_000;
    /** Seeds per parameter set; fewer in the runs under Netty's other switches (allocator/pom.xml). */
    private static final int ROUNDS = Integer.getInteger("magalloc.differential.rounds", 20);

    @ParameterizedTest(name = "direct={0} littleEndian={1} eventLoop={2}")
    @CsvSource({"true,false,false", "false,false,false", "true,true,false", "false,true,true", "true,false,true"})
    void matchesUnpooledForRandomOperationSequences(boolean direct, boolean littleEndian, boolean eventLoop)
        throws Throwable {
        long baseSeed = Long.getLong("magalloc.differential.seed", System.nanoTime());
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable body = () -> {
            for (int round = 0; round < ROUNDS; round++) {
                long seed = baseSeed + round;
                try {
                    run(allocator, direct, littleEndian, seed);
                } catch (Throwable t) {
                    failure.set(new AssertionError("seed " + seed + " (rerun with -Dmagalloc.differential.seed="
                        + seed + "): " + t.getMessage(), t));
                    return;
                }
            }
        };
        if (eventLoop) {
            Thread thread = new DefaultThreadFactory("differential").newThread(body);
            thread.start();
            thread.join();
        } else {
            body.run();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    // order(ByteOrder) is deprecated in Netty 4.2 but is how a little-endian buffer is still made; the test compares
    // that path too.
    @SuppressWarnings("deprecation")
    private static void run(MagazineByteBufAllocator allocator, boolean direct, boolean littleEndian, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int initial = random.nextInt(0, 2000);
        int max = initial + random.nextInt(0, 300_000);
        ByteBuf mag = direct ? allocator.directBuffer(initial, max) : allocator.heapBuffer(initial, max);
        ByteBuf ref = Unpooled.buffer(initial, max);
        if (littleEndian) {
            mag = mag.order(ByteOrder.LITTLE_ENDIAN);
            ref = ref.order(ByteOrder.LITTLE_ENDIAN);
        }
        mag.setZero(0, mag.capacity()); // pooled memory is not zeroed on allocation; unpooled memory is
        List<ByteBuf> extraRefs = new ArrayList<>();
        try {
            for (int step = 0; step < STEPS; step++) {
                int op = random.nextInt(24);
                String what = "step " + step + " op " + op;
                int capacityBefore = mag.capacity();
                apply(op, random, mag, ref, extraRefs, what);
                reconcileGrowth(mag, ref, capacityBefore);
                assertThat(mag.readerIndex()).as(what + " readerIndex").isEqualTo(ref.readerIndex());
                assertThat(mag.writerIndex()).as(what + " writerIndex").isEqualTo(ref.writerIndex());
                assertThat(mag.capacity()).as(what + " capacity").isEqualTo(ref.capacity());
                if (step % 16 == 0 || op >= 20) {
                    assertSameContents(mag, ref, what);
                }
            }
        } finally {
            for (ByteBuf extra : extraRefs) {
                extra.release();
            }
            mag.release();
            ref.release();
        }
    }

    private static void assertSameContents(ByteBuf mag, ByteBuf ref, String what) {
        byte[] actual = ByteBufUtil.getBytes(mag, 0, mag.capacity());
        byte[] expected = ByteBufUtil.getBytes(ref, 0, ref.capacity());
        int mismatch = java.util.Arrays.mismatch(actual, expected);
        assertThat(mismatch).as("%s: first differing byte of %d (magalloc %s, unpooled %s)", what, actual.length,
            mismatch < 0 ? "-" : String.valueOf(actual[Math.min(mismatch, actual.length - 1)]),
            mismatch < 0 ? "-" : String.valueOf(expected[Math.min(mismatch, expected.length - 1)])).isEqualTo(-1);
    }

    /**
     * Growth policies differ on purpose (magalloc first grows in place to the end of its segment), and bytes past
     * the writer index of grown memory are undefined in pooled memory but zero in unpooled memory. So after a
     * growth both buffers are brought to the larger capacity and the undefined tail is zeroed in both.
     */
    private static void reconcileGrowth(ByteBuf mag, ByteBuf ref, int capacityBefore) {
        int magCapacity = mag.capacity();
        int refCapacity = ref.capacity();
        if (magCapacity == refCapacity && magCapacity <= capacityBefore) {
            return;
        }
        int capacity = Math.max(magCapacity, refCapacity);
        mag.capacity(capacity);
        ref.capacity(capacity);
        if (capacity > capacityBefore) {
            int from = Math.max(capacityBefore, mag.writerIndex());
            mag.setZero(from, capacity - from);
            ref.setZero(from, capacity - from);
        }
    }

    private static void apply(int op, SplittableRandom r, ByteBuf mag, ByteBuf ref, List<ByteBuf> extras,
                              String what) {
        int writable = mag.maxCapacity() - mag.writerIndex();
        switch (op) {
            case 0: if (writable >= 1) { byte v = (byte) r.nextInt(); mag.writeByte(v); ref.writeByte(v); } break;
            case 1: if (writable >= 2) { short v = (short) r.nextInt(); mag.writeShort(v); ref.writeShort(v); }
                break;
            case 2: if (writable >= 2) { short v = (short) r.nextInt(); mag.writeShortLE(v); ref.writeShortLE(v); }
                break;
            case 3: if (writable >= 3) { int v = r.nextInt(); mag.writeMedium(v); ref.writeMedium(v); } break;
            case 4: if (writable >= 3) { int v = r.nextInt(); mag.writeMediumLE(v); ref.writeMediumLE(v); } break;
            case 5: if (writable >= 4) { int v = r.nextInt(); mag.writeInt(v); ref.writeInt(v); } break;
            case 6: if (writable >= 4) { int v = r.nextInt(); mag.writeIntLE(v); ref.writeIntLE(v); } break;
            case 7: if (writable >= 8) { long v = r.nextLong(); mag.writeLong(v); ref.writeLong(v); } break;
            case 8: if (writable >= 8) { long v = r.nextLong(); mag.writeLongLE(v); ref.writeLongLE(v); } break;
            case 9: if (writable >= 8) { double v = r.nextDouble(); mag.writeDouble(v); ref.writeDouble(v); }
                break;
            case 10: { // bulk write from an array, possibly large enough to move the buffer
                byte[] bytes = new byte[Math.min(writable, r.nextInt(0, r.nextBoolean() ? 64 : 40_000))];
                r.nextBytes(bytes);
                mag.writeBytes(bytes);
                ref.writeBytes(bytes);
                break;
            }
            case 11: { // bulk write from a direct NIO buffer
                byte[] bytes = new byte[Math.min(writable, r.nextInt(0, 3000))];
                r.nextBytes(bytes);
                ByteBuffer nio = ByteBuffer.allocateDirect(bytes.length);
                nio.put(bytes).flip();
                mag.writeBytes(nio.duplicate());
                ref.writeBytes(nio.duplicate());
                break;
            }
            case 12: { // bulk write from another magalloc buffer of the other memory type
                int n = Math.min(writable, r.nextInt(0, 2000));
                ByteBuf src = (mag.isDirect() ? mag.alloc().heapBuffer(n) : mag.alloc().directBuffer(n));
                byte[] bytes = new byte[n];
                r.nextBytes(bytes);
                src.writeBytes(bytes);
                mag.writeBytes(src, 0, n);
                ref.writeBytes(bytes);
                src.release();
                break;
            }
            case 13: if (mag.capacity() >= 8) { // random set/get of every width
                int i = r.nextInt(0, mag.capacity() - 7);
                long v = r.nextLong();
                switch (r.nextInt(6)) {
                    case 0: mag.setLong(i, v); ref.setLong(i, v); break;
                    case 1: mag.setIntLE(i, (int) v); ref.setIntLE(i, (int) v); break;
                    case 2: mag.setMedium(i, (int) v); ref.setMedium(i, (int) v); break;
                    case 3: mag.setShortLE(i, (int) v); ref.setShortLE(i, (int) v); break;
                    case 4: mag.setChar(i, (char) v); ref.setChar(i, (char) v); break;
                    default: mag.setFloat(i, (float) v); ref.setFloat(i, (float) v); break;
                }
                assertThat(mag.getLong(i)).as(what).isEqualTo(ref.getLong(i));
                assertThat(mag.getLongLE(i)).as(what).isEqualTo(ref.getLongLE(i));
                assertThat(mag.getUnsignedMedium(i)).as(what).isEqualTo(ref.getUnsignedMedium(i));
                assertThat(mag.getUnsignedMediumLE(i)).as(what).isEqualTo(ref.getUnsignedMediumLE(i));
                assertThat(mag.getShort(i)).as(what).isEqualTo(ref.getShort(i));
                assertThat(mag.getIntLE(i)).as(what).isEqualTo(ref.getIntLE(i));
            }
                break;
            case 14: { // reads of every width
                int readable = mag.readableBytes();
                if (readable >= 8) {
                    switch (r.nextInt(4)) {
                        case 0: assertThat(mag.readLong()).as(what).isEqualTo(ref.readLong()); break;
                        case 1: assertThat(mag.readIntLE()).as(what).isEqualTo(ref.readIntLE()); break;
                        case 2: assertThat(mag.readUnsignedMedium()).as(what).isEqualTo(ref.readUnsignedMedium());
                            break;
                        default: assertThat(mag.readShortLE()).as(what).isEqualTo(ref.readShortLE()); break;
                    }
                } else if (readable > 0) {
                    assertThat(mag.readByte()).as(what).isEqualTo(ref.readByte());
                }
                break;
            }
            case 15: { // bulk reads into an array and an NIO buffer
                int n = r.nextInt(0, mag.readableBytes() + 1);
                byte[] a = new byte[n];
                byte[] b = new byte[n];
                mag.readBytes(a);
                ref.readBytes(b);
                assertThat(a).as(what).isEqualTo(b);
                int m = r.nextInt(0, mag.capacity() + 1);
                int at = r.nextInt(0, mag.capacity() - m + 1);
                ByteBuffer x = ByteBuffer.allocate(m);
                ByteBuffer y = ByteBuffer.allocate(m);
                mag.getBytes(at, x);
                ref.getBytes(at, y);
                assertThat(x.flip()).as(what).isEqualTo(y.flip());
                break;
            }
            case 16: { // ensureWritable (in place or moving)
                int n = r.nextInt(0, Math.max(1, Math.min(writable, r.nextBoolean() ? 200 : 70_000)) + 1);
                if (n <= writable) {
                    mag.ensureWritable(n);
                    ref.ensureWritable(n);
                    assertThat(mag.writableBytes()).as(what).isGreaterThanOrEqualTo(n);
                }
                break;
            }
            case 17: { // capacity(n), shrinking or growing
                int n = r.nextInt(0, Math.min(mag.maxCapacity(), mag.capacity() * 2 + 64) + 1);
                mag.capacity(n);
                ref.capacity(n);
                break;
            }
            case 18: mag.discardReadBytes(); ref.discardReadBytes(); break;
            case 19: { // index moves
                int w = r.nextInt(0, mag.capacity() + 1);
                int rd = r.nextInt(0, w + 1);
                mag.setIndex(rd, w);
                ref.setIndex(rd, w);
                break;
            }
            case 20: { // slices and duplicates see the same bytes
                int start = r.nextInt(0, mag.capacity() + 1);
                int len = r.nextInt(0, mag.capacity() - start + 1);
                assertThat(ByteBufUtil.getBytes(mag.slice(start, len))).as(what)
                    .isEqualTo(ByteBufUtil.getBytes(ref.slice(start, len)));
                ByteBuf dup = mag.duplicate();
                assertThat(dup.readerIndex()).isEqualTo(mag.readerIndex());
                break;
            }
            case 21: { // a retained slice keeps the memory alive; writes through it are visible
                if (mag.capacity() > 4) {
                    int start = r.nextInt(0, mag.capacity() - 4);
                    ByteBuf slice = mag.retainedSlice(start, 4);
                    int v = r.nextInt();
                    slice.setInt(0, v);
                    ref.setInt(start, v);
                    extras.add(slice);
                }
                break;
            }
            case 22: if (!extras.isEmpty()) { // release one of the extra references
                extras.remove(r.nextInt(extras.size())).release();
            }
                break;
            default: { // setZero and a copy
                int start = r.nextInt(0, mag.capacity() + 1);
                int len = r.nextInt(0, mag.capacity() - start + 1);
                mag.setZero(start, len);
                ref.setZero(start, len);
                ByteBuf copy = mag.copy(start, len);
                assertThat(ByteBufUtil.getBytes(copy)).as(what).isEqualTo(ByteBufUtil.getBytes(ref, start, len));
                copy.release();
                break;
            }
        }
    }
}
