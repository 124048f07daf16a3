package io.github.magalloc;

import io.netty.buffer.ByteBuf;

/** Small helpers for the tests in this package. */
final class TestSupport {
    private TestSupport() {
    }

    /** The innermost buffer under leak-detection wrappers. */
    static ByteBuf unwrap(ByteBuf buf) {
        ByteBuf b = buf;
        while (b.unwrap() != null) {
            b = b.unwrap();
        }
        return b;
    }
}
