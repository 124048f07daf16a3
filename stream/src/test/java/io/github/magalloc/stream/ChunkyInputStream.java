package io.github.magalloc.stream;

import java.io.InputStream;
import java.util.Random;

/** Returns its data in reads of random, often short, lengths (as a socket would). */
final class ChunkyInputStream extends InputStream {
    private final byte[] data;
    private final Random random;
    private int next;

    ChunkyInputStream(byte[] data, Random random) {
        this.data = data;
        this.random = random;
    }

    @Override
    public int read() {
        return next < data.length ? data[next++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (len == 0) {
            return 0;
        }
        if (next == data.length) {
            return -1;
        }
        int n = Math.min(Math.min(len, data.length - next), 1 + random.nextInt(3 * len));
        System.arraycopy(data, next, b, off, n);
        next += n;
        return n;
    }
}
