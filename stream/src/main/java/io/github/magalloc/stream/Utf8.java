package io.github.magalloc.stream;

/**
 * Encoded sizes of strings: UTF-8 with the stream's policy (an unpaired surrogate is encoded as {@code '?'}, one
 * byte), and {@link java.io.DataOutput#writeUTF}'s modified UTF-8.
 */
final class Utf8 {
    private Utf8() {
    }

    /** Length of the all-ASCII prefix: {@code s.length()} for the common, all-ASCII string. */
    static int asciiPrefix(String s) {
        int n = s.length();
        int i = 0;
        while (i < n && s.charAt(i) < 0x80) { // a tight loop the JIT unrolls
            i++;
        }
        return i;
    }

    /**
     * Bytes {@code s} takes in UTF-8, given that {@code s[0, from)} is ASCII. Not a test for ASCII: unpaired
     * surrogates take one byte each too.
     */
    static int encodedLength(String s, int from) {
        int n = s.length();
        long bytes = from;
        for (int i = from; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 1; // '?'
            }
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("string too long for UTF-8 in one stream: " + bytes);
        }
        return (int) bytes;
    }

    /** Bytes {@code s} takes in modified UTF-8: NUL and 0x80..0x7FF take 2, 0x800 and above (surrogates too) 3. */
    static long modifiedLength(String s) {
        int n = s.length();
        long bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x800) {
                bytes += 2;
            } else if (c >= 0x80 || c == 0) {
                bytes += 1;
            }
        }
        return bytes;
    }
}
