package io.github.magalloc.bench.stream;

import java.util.Random;

/** Elasticsearch's six stream-benchmark cases, as data built once from a fixed seed (never constants). */
final class StreamWorkload {
    static final int PAGE = 16 * 1024;
    static final int SINGLE_BYTES = 2717;
    static final int[] ARRAY_SIZES = {327, 712, 1678};
    /** Start of the page-crossing case: the three arrays (2,717 bytes) cross the 16 KiB page end in the second. */
    static final int ACROSS_START = PAGE - 1000;
    static final int MULTI_PAGE = 65548;
    static final int VINTS = 1000;

    final byte[] singles = new byte[SINGLE_BYTES];
    final byte[][] arrays = new byte[ARRAY_SIZES.length][];
    final byte[] multiPage = new byte[MULTI_PAGE];
    final String[] strings;
    final int[] vints = new int[VINTS];

    StreamWorkload() {
        Random r = new Random(42);
        r.nextBytes(singles);
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = new byte[ARRAY_SIZES[i]];
            r.nextBytes(arrays[i]);
        }
        r.nextBytes(multiPage);
        strings = new String[] {ascii(r, 20), ascii(r, 100), ascii(r, 800), mixed(r, 200)};
        for (int i = 0; i < VINTS; i++) {
            int kind = i % 8; // half 1-byte, a quarter 2-byte, an eighth 3-byte, an eighth any int
            vints[i] = kind < 4 ? r.nextInt(1 << 7)
                    : kind < 6 ? (1 << 7) + r.nextInt((1 << 14) - (1 << 7))
                    : kind < 7 ? (1 << 14) + r.nextInt((1 << 21) - (1 << 14))
                    : r.nextInt();
        }
        for (int i = VINTS - 1; i > 0; i--) { // shuffle so the widths do not follow a pattern
            int j = r.nextInt(i + 1);
            int t = vints[i];
            vints[i] = vints[j];
            vints[j] = t;
        }
    }

    private static String ascii(Random r, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) (' ' + r.nextInt(95));
        }
        return new String(c);
    }

    /** 10% 2-byte and 5% 3-byte characters, the rest ASCII. */
    private static String mixed(Random r, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            int p = r.nextInt(100);
            c[i] = p < 10 ? (char) (0xC0 + r.nextInt(0x100)) : p < 15 ? (char) (0x4E00 + r.nextInt(0x1000))
                    : (char) ('a' + r.nextInt(26));
        }
        return new String(c);
    }
}
