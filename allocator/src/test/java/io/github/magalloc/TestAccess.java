package io.github.magalloc;

import io.netty.buffer.ByteBuf;

/** Lets tests outside this package (Netty's suites live in io.netty.buffer) observe magalloc internals. */
public final class TestAccess {
    private TestAccess() {
    }

    /** Bytes of the slab a chunk for requests of {@code size} bytes is cut from. */
    public static int slabSizeFor(int size) {
        return SizeClasses.chunkSizeOf(SizeClasses.indexOf(size));
    }

    /** Identifies the memory a buffer lives in: changes exactly when the buffer moves to other memory. */
    public static String memoryIdentity(ByteBuf buffer) {
        MagByteBuf buf = magByteBuf(buffer);
        return System.identityHashCode(buf.chunk) + ":" + buf.offset;
    }

    /** Bytes reserved for the buffer: how far it can grow in place. */
    public static int reservedBytes(ByteBuf buffer) {
        return magByteBuf(buffer).maxLength;
    }

    static MagByteBuf magByteBuf(ByteBuf buffer) {
        ByteBuf b = buffer;
        while (!(b instanceof MagByteBuf)) {
            b = b.unwrap();
            if (b == null) {
                throw new IllegalArgumentException("not a magalloc buffer: " + buffer);
            }
        }
        return (MagByteBuf) b;
    }
}
