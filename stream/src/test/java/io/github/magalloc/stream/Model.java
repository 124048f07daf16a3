package io.github.magalloc.stream;

import java.util.Arrays;

/** The obvious reference: one growable array, a position and a size. */
final class Model {
    private byte[] bytes = new byte[64];
    int position;
    int size;

    void write(byte[] b) {
        ensure(position + b.length);
        System.arraycopy(b, 0, bytes, position, b.length);
        position += b.length;
        size = Math.max(size, position);
    }

    /** Beyond size, the gap reads as zero: bytes past size were never written. */
    void seek(int p) {
        ensure(p);
        position = p;
        size = Math.max(size, p);
    }

    void set(int at, byte[] b) {
        System.arraycopy(b, 0, bytes, at, b.length);
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int n) {
        if (n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(n, bytes.length * 2));
        }
    }
}
