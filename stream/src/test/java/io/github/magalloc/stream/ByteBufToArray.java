package io.github.magalloc.stream;

import io.netty.buffer.ByteBuf;

final class ByteBufToArray {
    private ByteBufToArray() {
    }

    /** The readable bytes, indices untouched. */
    static byte[] of(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }
}
