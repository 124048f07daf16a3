package io.github.magalloc.soak;

import io.netty.buffer.ByteBuf;

/**
 * The bytes a soak buffer must hold: byte {@code i} of an allocation is byte {@code i & 7} (big-endian) of
 * {@code word(seed, i >>> 3)}, where the seed mixes the allocation's generation number and its memory identity.
 * Written at allocation (and over grown space), checked by every thread that receives the buffer and at release.
 */
final class DataPattern {
    private DataPattern() {
    }

    static long seed(long generation, long memoryKey) {
        return mix(generation * 0x9E3779B97F4A7C15L ^ memoryKey);
    }

    static long word(long seed, int wordIndex) {
        return mix(seed + wordIndex * 0xD1B54A32D192ED03L);
    }

    static byte byteAt(long seed, int index) {
        return (byte) (word(seed, index >>> 3) >>> (56 - ((index & 7) << 3)));
    }

    /** Writes the pattern into {@code root[from, to)} (allocation indices). */
    static void fill(ByteBuf root, long seed, int from, int to) {
        int i = from;
        for (; i < to && (i & 7) != 0; i++) {
            root.setByte(i, byteAt(seed, i));
        }
        for (; i + 8 <= to; i += 8) {
            root.setLong(i, word(seed, i >>> 3));
        }
        for (; i < to; i++) {
            root.setByte(i, byteAt(seed, i));
        }
    }

    /**
     * Checks {@code view[0, length)}, whose index 0 is index {@code offset} of the allocation. Returns -1, or the
     * first view index that holds a wrong byte.
     */
    static int check(ByteBuf view, int offset, long seed, int length) {
        int j = 0;
        for (; j < length && ((offset + j) & 7) != 0; j++) {
            if (view.getByte(j) != byteAt(seed, offset + j)) {
                return j;
            }
        }
        for (; j + 8 <= length; j += 8) {
            if (view.getLong(j) != word(seed, (offset + j) >>> 3)) {
                for (int k = j; k < j + 8; k++) {
                    if (view.getByte(k) != byteAt(seed, offset + k)) {
                        return k;
                    }
                }
            }
        }
        for (; j < length; j++) {
            if (view.getByte(j) != byteAt(seed, offset + j)) {
                return j;
            }
        }
        return -1;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
