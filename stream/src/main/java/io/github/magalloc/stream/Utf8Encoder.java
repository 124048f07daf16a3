package io.github.magalloc.stream;

import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;

/**
 * Characters as bytes for a {@link PagedByteBufOutput}: UTF-8, where ASCII and each longer code point have a fast
 * path of their own and go byte by byte across a page end, and {@link java.io.DataOutput#writeUTF}'s modified UTF-8.
 * How many bytes a string takes is {@code Utf8}'s.
 */
abstract class Utf8Encoder extends PageCopies {
    Utf8Encoder(ByteBufAllocator allocator, int pageSize, int maxSize) {
        super(allocator, pageSize, maxSize);
    }

    // Declared here so that the byte-by-byte paths go through the subclass's one-byte fast path.
    abstract void writeByte(int v);

    /** The chars of {@code s} in UTF-8, without a length; an unpaired surrogate becomes {@code '?'}. */
    final void encodeUtf8(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            int o = offset;
            if (c < 0x80 && o < limit) {
                mem.put(o, (byte) c);
                offset = o + 1;
                continue;
            }
            int cp = c;
            if (Character.isSurrogate(c)) {
                char d;
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(d = s.charAt(i + 1))) {
                    cp = Character.toCodePoint(c, d);
                    i++;
                } else {
                    cp = '?';
                }
            }
            writeCodePoint(cp);
        }
    }

    /** One code point in 1 to 4 bytes; {@code cp} is not a surrogate. */
    private void writeCodePoint(int cp) {
        int o = offset;
        if (o > limit - 4) {
            writeCodePointSlow(cp);
            return;
        }
        ByteBuffer m = mem;
        if (cp < 0x80) {
            m.put(o++, (byte) cp);
        } else if (cp < 0x800) {
            m.put(o++, (byte) (0xC0 | cp >> 6));
            m.put(o++, (byte) (0x80 | cp & 0x3F));
        } else if (cp < 0x10000) {
            m.put(o++, (byte) (0xE0 | cp >> 12));
            m.put(o++, (byte) (0x80 | cp >> 6 & 0x3F));
            m.put(o++, (byte) (0x80 | cp & 0x3F));
        } else {
            m.put(o++, (byte) (0xF0 | cp >> 18));
            m.put(o++, (byte) (0x80 | cp >> 12 & 0x3F));
            m.put(o++, (byte) (0x80 | cp >> 6 & 0x3F));
            m.put(o++, (byte) (0x80 | cp & 0x3F));
        }
        offset = o;
    }

    private void writeCodePointSlow(int cp) {
        if (cp < 0x80) {
            writeByte(cp);
        } else if (cp < 0x800) {
            writeByte(0xC0 | cp >> 6);
            writeByte(0x80 | cp & 0x3F);
        } else if (cp < 0x10000) {
            writeByte(0xE0 | cp >> 12);
            writeByte(0x80 | cp >> 6 & 0x3F);
            writeByte(0x80 | cp & 0x3F);
        } else {
            writeByte(0xF0 | cp >> 18);
            writeByte(0x80 | cp >> 12 & 0x3F);
            writeByte(0x80 | cp >> 6 & 0x3F);
            writeByte(0x80 | cp & 0x3F);
        }
    }

    /** The chars of {@code s} in modified UTF-8, without a length: NUL in 2 bytes, each surrogate in 3. */
    final void encodeModifiedUtf8(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c != 0 && c < 0x80) {
                writeByte(c);
            } else if (c < 0x800) {
                writeByte(0xC0 | c >> 6);
                writeByte(0x80 | c & 0x3F);
            } else {
                writeByte(0xE0 | c >> 12);
                writeByte(0x80 | c >> 6 & 0x3F);
                writeByte(0x80 | c & 0x3F);
            }
        }
    }
}
