package io.github.magalloc.e2e;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Bodies are a pure function of (seed, size), so the client can check any response without keeping what it sent:
 * 64-bit words of SplitMix64 over the seed, big-endian, cut to size.
 */
public final class Payload {
    private static final ThreadLocal<ByteBuffer> SCRATCH = ThreadLocal.withInitial(() -> ByteBuffer.allocate(0));

    private Payload() {
    }

    static long word(long seed, long index) {
        long z = seed + (index + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Appends the body for (seed, size) to {@code buf} with one bulk write: byte-wise or long-wise writes would each be
     * a recorded access on a leak-aware buffer under PARANOID leak detection.
     */
    public static void fill(ByteBuf buf, long seed, int size) {
        buf.writeBytes(generate(seed, size), 0, size);
    }

    /** CRC32C of the body for (seed, size), computed independently of any ByteBuf. */
    public static long expectedCrc(long seed, int size) {
        CRC32C crc = new CRC32C();
        crc.update(generate(seed, size), 0, size);
        return crc.getValue();
    }

    /** The body for (seed, size) in the first size bytes of a per-thread scratch array. */
    private static byte[] generate(long seed, int size) {
        ByteBuffer scratch = SCRATCH.get();
        if (scratch.capacity() < size + 8) {
            scratch = ByteBuffer.allocate(Math.max(size + 8, 2 * scratch.capacity()));
            SCRATCH.set(scratch);
        }
        scratch.clear();
        for (int i = 0; i <= (size >>> 3); i++) {
            scratch.putLong(word(seed, i));
        }
        return scratch.array();
    }

    /** CRC32C of the readable bytes of {@code buf}, without moving its indexes. */
    public static long crc(ByteBuf buf) {
        CRC32C crc = new CRC32C();
        for (ByteBuffer b : buf.nioBuffers(buf.readerIndex(), buf.readableBytes())) {
            crc.update(b);
        }
        return crc.getValue();
    }

    /** Null when {@code body} is exactly the body for (seed, size), else what is wrong with it. */
    public static String verify(ByteBuf body, long seed, int size) {
        if (body.readableBytes() != size) {
            return "length " + body.readableBytes() + " != expected " + size;
        }
        long got = crc(body);
        long want = expectedCrc(seed, size);
        return got == want ? null
                : String.format("crc32c %08x != expected %08x (size %d, seed %d)", got, want, size, seed);
    }
}
