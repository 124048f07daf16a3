package io.github.magalloc;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.core.MemoryPool;
import io.github.magalloc.core.SizeClasses;
import io.netty.buffer.ByteBuf;

/**
 * Lets tests outside this package (the core's and buffers' own tests, Netty's suites in io.netty.buffer) reach
 * what the allocator keeps package-private: its pools and its buffer objects.
 */
public final class TestAccess {
    private TestAccess() {
    }

    /** The pool of {@code allocator} for one kind of memory. */
    public static MemoryPool pool(MagazineByteBufAllocator allocator, boolean direct) {
        return allocator.pool(direct);
    }

    /** Bytes of the slab a chunk for requests of {@code size} bytes is cut from. */
    public static int slabSizeFor(int size) {
        return SizeClasses.chunkSizeOf(SizeClasses.indexOf(size));
    }

    /** Identifies the memory a buffer lives in: changes exactly when the buffer moves to other memory. */
    public static String memoryIdentity(ByteBuf buffer) {
        MagByteBuf buf = magByteBuf(buffer);
        return System.identityHashCode(buf.memory()) + ":" + buf.offset();
    }

    /** Bytes reserved for the buffer: how far it can grow in place. */
    public static int reservedBytes(ByteBuf buffer) {
        return magByteBuf(buffer).reservedBytes();
    }

    /** The magalloc buffer object under leak-detection wrappers (or slices). */
    public static MagByteBuf magByteBuf(ByteBuf buffer) {
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
