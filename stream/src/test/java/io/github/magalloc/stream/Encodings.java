package io.github.magalloc.stream;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Reference encodings for the tests, written independently of the stream (JDK classes where possible). */
final class Encodings {
    private Encodings() {
    }

    interface DataWrite {
        void write(DataOutputStream out) throws IOException;
    }

    static byte[] jdk(DataWrite w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** LEB128 of the unsigned value, by repeated division. */
    static byte[] leb128(long unsigned) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long rest = unsigned;
        do {
            int group = (int) Long.remainderUnsigned(rest, 128);
            rest = Long.divideUnsigned(rest, 128);
            out.write(rest != 0 ? group + 128 : group);
        } while (rest != 0);
        return out.toByteArray();
    }

    static byte[] zigzag(long v) {
        // 0, -1, 1, -2 ... -> 0, 1, 2, 3 ...; computed without the shift-xor trick the stream uses
        return leb128(v >= 0 ? 2 * v : -2 * (v + 1) + 1);
    }

    static byte[] string(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        return concat(leb128(utf8.length), utf8);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** A string of ASCII, 2-, 3- and 4-byte characters, with unpaired surrogates and NULs if asked. */
    static String randomString(Random r, int chars, boolean unpaired) {
        StringBuilder sb = new StringBuilder(chars);
        while (sb.length() < chars) {
            int kind = r.nextInt(unpaired ? 7 : 5);
            switch (kind) {
                case 0, 1 -> sb.append((char) r.nextInt(0x80));
                case 2 -> sb.append((char) (0x80 + r.nextInt(0x800 - 0x80)));
                case 3 -> {
                    char c;
                    do {
                        c = (char) (0x800 + r.nextInt(0x10000 - 0x800));
                    } while (Character.isSurrogate(c));
                    sb.append(c);
                }
                case 4 -> sb.appendCodePoint(0x10000 + r.nextInt(0x110000 - 0x10000));
                case 5 -> sb.append((char) (0xD800 + r.nextInt(0x400))); // high, maybe paired by luck
                default -> sb.append((char) (0xDC00 + r.nextInt(0x400))); // low
            }
        }
        return sb.toString();
    }
}
