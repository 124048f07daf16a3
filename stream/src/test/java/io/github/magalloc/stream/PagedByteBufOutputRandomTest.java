package io.github.magalloc.stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Random;
import java.util.stream.LongStream;

import static io.github.magalloc.stream.Encodings.jdk;
import static io.github.magalloc.stream.Encodings.le;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random sequences of operations: against a reference model for the whole API, and against
 * {@link DataOutputStream} for every {@link java.io.DataOutput} method. Guard bytes are checked after every operation.
 * Re-run a failure with the seed from its message (fixed seeds plus one new seed per run).
 */
class PagedByteBufOutputRandomTest {
    private static final int[] PAGE_SIZES = {1, 2, 3, 5, 8, 13, 64, 100, 1024, 16384};

    static LongStream seeds() {
        return LongStream.concat(LongStream.rangeClosed(1, 40), LongStream.of(System.nanoTime()));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void matchesModel(long seed) throws IOException {
        Random r = new Random(seed);
        int pageSize = PAGE_SIZES[r.nextInt(PAGE_SIZES.length)];
        boolean direct = r.nextBoolean();
        GuardedPageAllocator alloc = new GuardedPageAllocator(seed, direct);
        PagedByteBufOutput out = new PagedByteBufOutput(alloc, pageSize);
        Model model = new Model();
        String ctx = "seed " + seed + ", page " + pageSize + (direct ? " direct" : " heap");
        for (int op = 0; op < 300; op++) {
            String what = step(r, out, model, pageSize);
            String at = ctx + ", op " + op + " (" + what + ")";
            alloc.checkGuards();
            assertThat(out.position()).as(at).isEqualTo(model.position);
            assertThat(out.size()).as(at).isEqualTo(model.size);
            if (op % Integer.getInteger("checkEvery", 10) == 0) {
                assertThat(out.toByteArray()).as(at).isEqualTo(model.toByteArray());
            }
        }
        assertThat(out.toByteArray()).as(ctx).isEqualTo(model.toByteArray());
        finish(r, out, model, alloc, ctx);
    }

    private static String step(Random r, PagedByteBufOutput out, Model model, int pageSize) throws IOException {
        int kind = r.nextInt(24);
        switch (kind) {
            case 0 -> {
                int v = r.nextInt();
                out.writeByte(v);
                model.write(new byte[] {(byte) v});
            }
            case 1 -> {
                short v = (short) r.nextInt();
                out.writeShortLE(v);
                model.write(le(2).putShort(v).array());
            }
            case 2 -> {
                int v = r.nextInt();
                out.writeIntLE(v);
                model.write(le(4).putInt(v).array());
            }
            case 3 -> {
                long v = r.nextLong();
                out.writeLongLE(v);
                model.write(le(8).putLong(v).array());
            }
            case 4 -> {
                float v = Float.intBitsToFloat(r.nextInt());
                out.writeFloatLE(v);
                model.write(le(4).putInt(Float.floatToIntBits(v)).array()); // NaNs canonical, as writeFloat
            }
            case 5 -> {
                double v = Double.longBitsToDouble(r.nextLong());
                out.writeDoubleLE(v);
                model.write(le(8).putLong(Double.doubleToLongBits(v)).array());
            }
            case 6 -> {
                int v = r.nextInt() >> r.nextInt(32);
                out.writeVInt(v);
                model.write(Encodings.leb128(v & 0xFFFF_FFFFL));
            }
            case 7 -> {
                long v = r.nextLong() >> r.nextInt(64);
                out.writeVLong(v);
                model.write(Encodings.leb128(v));
            }
            case 8 -> {
                int v = r.nextInt() >> r.nextInt(32);
                out.writeZInt(v);
                model.write(Encodings.zigzag(v));
            }
            case 9 -> {
                long v = r.nextLong() >> r.nextInt(64);
                out.writeZLong(v);
                model.write(Encodings.zigzag(v));
            }
            case 10 -> {
                byte[] b = randomBytes(r, r.nextInt(3 * pageSize + 2));
                int off = r.nextInt(4);
                byte[] padded = new byte[b.length + 8];
                System.arraycopy(b, 0, padded, off, b.length);
                out.writeBytes(padded, off, b.length);
                model.write(b);
            }
            case 11 -> {
                byte[] b = randomBytes(r, r.nextInt(3 * pageSize + 2));
                ByteBuffer src = r.nextBoolean() ? ByteBuffer.allocateDirect(b.length + 3) : ByteBuffer.allocate(b.length + 3);
                src.position(3);
                src.put(b).position(3);
                out.writeBytes(src);
                assertThat(src.hasRemaining()).isFalse();
                model.write(b);
            }
            case 12 -> {
                byte[] b = randomBytes(r, r.nextInt(3 * pageSize + 2));
                ByteBuf src = randomBuf(r, b);
                out.writeBytes(src);
                assertThat(src.isReadable()).isFalse();
                src.release();
                model.write(b);
            }
            case 13 -> {
                String s = Encodings.randomString(r, r.nextInt(2 * pageSize + 2), true);
                out.writeString(s);
                model.write(Encodings.string(s));
                return "writeString " + s.length();
            }
            case 14 -> {
                String s = randomAscii(r, r.nextInt(3 * pageSize + 2));
                out.writeString(s);
                model.write(Encodings.string(s));
            }
            case 15 -> {
                String s = Encodings.randomString(r, r.nextInt(10), false);
                out.writeAscii(s);
                byte[] b = new byte[s.length()];
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) (s.charAt(i) < 0x80 ? s.charAt(i) : '?');
                }
                model.write(b);
            }
            case 16, 17 -> {
                int to = r.nextInt(model.size + 2 * pageSize + 1);
                if (r.nextInt(4) == 0) {
                    to = model.size; // seeking to the end, often a page end
                }
                out.seek(to);
                model.seek(to);
                return "seek " + to;
            }
            case 18 -> {
                int n = r.nextInt(pageSize + 2);
                out.skip(n);
                model.seek(model.position + n);
            }
            case 19 -> {
                int at = out.reserve(4);
                assertThat(at).isEqualTo(model.position);
                model.seek(model.position + 4);
                byte[] body = randomBytes(r, r.nextInt(2 * pageSize + 1));
                out.writeBytes(body);
                model.write(body);
                int v = r.nextInt();
                out.setInt(at, v);
                model.set(at, jdk(d -> d.writeInt(v)));
            }
            case 20 -> {
                if (model.size >= 8) {
                    int at = r.nextInt(model.size - 7);
                    long v = r.nextLong();
                    out.setLongLE(at, v);
                    model.set(at, le(8).putLong(v).array());
                    byte b = (byte) r.nextInt();
                    out.setByte(at + 7, b);
                    model.set(at + 7, new byte[] {b});
                }
            }
            case 21 -> {
                byte[] b = randomBytes(r, r.nextInt(3 * pageSize + 2));
                assertThat(out.writeAllFrom(new ChunkyInputStream(b, r))).isEqualTo(b.length);
                model.write(b);
            }
            case 22 -> {
                byte[] b = randomBytes(r, r.nextInt(3 * pageSize + 2));
                assertThat(out.writeAllFrom(Channels.newChannel(new ChunkyInputStream(b, r)))).isEqualTo(b.length);
                model.write(b);
            }
            default -> {
                ByteBuf view = out.view();
                assertThat(view.isReadOnly()).isTrue();
                byte[] seen = new byte[view.readableBytes()];
                view.getBytes(0, seen);
                assertThat(seen).isEqualTo(model.toByteArray());
            }
        }
        return "kind " + kind;
    }

    /** Ends the stream one of three ways and checks what survives. */
    private static void finish(Random r, PagedByteBufOutput out, Model model, GuardedPageAllocator alloc, String ctx) {
        byte[] expected = model.toByteArray();
        byte[] copy = out.toByteArray();
        ByteBuf compact = out.compactCopy();
        switch (r.nextInt(3)) {
            case 0 -> out.close();
            case 1 -> {
                CompositeByteBuf detached = out.detach();
                byte[] seen = new byte[detached.readableBytes()];
                detached.getBytes(0, seen);
                assertThat(seen).as(ctx).isEqualTo(expected);
                detached.release();
            }
            default -> {
                ByteBuf view = out.view();
                out.close();
                assertThat(view.refCnt()).as(ctx).isZero();
            }
        }
        out.close();
        alloc.checkGuards();
        assertThat(alloc.livePages()).as(ctx + ": pages not returned").isZero();
        assertThat(copy).as(ctx).isEqualTo(expected);
        assertThat(compact.array()).as(ctx).isEqualTo(expected);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void matchesDataOutputStream(long seed) throws IOException {
        Random r = new Random(seed);
        int pageSize = PAGE_SIZES[r.nextInt(PAGE_SIZES.length)];
        GuardedPageAllocator alloc = new GuardedPageAllocator(seed, r.nextBoolean());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream jdk = new DataOutputStream(bytes);
        try (PagedByteBufOutput out = new PagedByteBufOutput(alloc, pageSize)) {
            for (int op = 0; op < 400; op++) {
                int kind = r.nextInt(14);
                switch (kind) {
                    case 0 -> {
                        int v = r.nextInt();
                        out.write(v);
                        jdk.write(v);
                    }
                    case 1 -> {
                        byte[] b = randomBytes(r, r.nextInt(3 * pageSize + 2));
                        out.write(b);
                        jdk.write(b);
                    }
                    case 2 -> {
                        byte[] b = randomBytes(r, r.nextInt(3 * pageSize + 2) + 4);
                        int off = r.nextInt(4);
                        int len = r.nextInt(b.length - off + 1);
                        out.write(b, off, len);
                        jdk.write(b, off, len);
                    }
                    case 3 -> {
                        boolean v = r.nextBoolean();
                        out.writeBoolean(v);
                        jdk.writeBoolean(v);
                    }
                    case 4 -> {
                        int v = r.nextInt();
                        out.writeByte(v);
                        jdk.writeByte(v);
                    }
                    case 5 -> {
                        int v = r.nextInt();
                        out.writeShort(v);
                        jdk.writeShort(v);
                    }
                    case 6 -> {
                        int v = r.nextInt();
                        out.writeChar(v);
                        jdk.writeChar(v);
                    }
                    case 7 -> {
                        int v = r.nextInt();
                        out.writeInt(v);
                        jdk.writeInt(v);
                    }
                    case 8 -> {
                        long v = r.nextLong();
                        out.writeLong(v);
                        jdk.writeLong(v);
                    }
                    case 9 -> {
                        // include NaNs with payloads: both must canonicalise them the same way
                        float v = r.nextBoolean() ? r.nextFloat() : Float.intBitsToFloat(r.nextInt());
                        out.writeFloat(v);
                        jdk.writeFloat(v);
                    }
                    case 10 -> {
                        double v = r.nextBoolean() ? r.nextDouble() : Double.longBitsToDouble(r.nextLong());
                        out.writeDouble(v);
                        jdk.writeDouble(v);
                    }
                    case 11 -> {
                        String s = Encodings.randomString(r, r.nextInt(2 * pageSize + 2), true);
                        out.writeBytes(s);
                        jdk.writeBytes(s);
                    }
                    case 12 -> {
                        String s = Encodings.randomString(r, r.nextInt(2 * pageSize + 2), true);
                        out.writeChars(s);
                        jdk.writeChars(s);
                    }
                    default -> {
                        String s = Encodings.randomString(r, r.nextInt(2 * pageSize + 2), true);
                        boolean jdkThrew = false;
                        boolean outThrew = false;
                        try {
                            jdk.writeUTF(s);
                        } catch (UTFDataFormatException e) {
                            jdkThrew = true;
                        }
                        try {
                            out.writeUTF(s);
                        } catch (UTFDataFormatException e) {
                            outThrew = true;
                        }
                        assertThat(outThrew).as("seed %d: writeUTF of %d chars throws", seed, s.length())
                                .isEqualTo(jdkThrew);
                    }
                }
                alloc.checkGuards();
                assertThat(out.size()).as("seed %d page %d op %d kind %d", seed, pageSize, op, kind)
                        .isEqualTo(jdk.size());
            }
            assertThat(out.toByteArray()).as("seed %d page %d", seed, pageSize).isEqualTo(bytes.toByteArray());
        }
        assertThat(alloc.livePages()).isZero();
    }

    static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    static String randomAscii(Random r, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) r.nextInt(0x80);
        }
        return new String(c);
    }

    /** {@code b} as the readable bytes of a heap, direct, sliced or composite buffer. */
    static ByteBuf randomBuf(Random r, byte[] b) {
        switch (r.nextInt(4)) {
            case 0:
                return Unpooled.wrappedBuffer(b);
            case 1:
                return Unpooled.directBuffer(b.length).writeBytes(b);
            case 2: {
                ByteBuf big = Unpooled.buffer(b.length + 10).writerIndex(5).writeBytes(b).writeZero(5);
                return big.slice(5, b.length);
            }
            default: {
                CompositeByteBuf c = Unpooled.compositeBuffer();
                int i = 0;
                while (i < b.length) {
                    int n = Math.min(b.length - i, 1 + r.nextInt(7));
                    ByteBuf part = r.nextBoolean() ? Unpooled.directBuffer(n) : Unpooled.buffer(n);
                    c.addComponent(true, part.writeBytes(b, i, n));
                    i += n;
                }
                return c;
            }
        }
    }
}
