package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.MagByteBuf;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

/**
 * Tests of one thread magazine, owned by the test thread (no decay, so no decay ticks but those a test runs),
 * in the heap pool of an allocator of the test's own; every 1 KiB buffer a test takes through {@link #allocate} or
 * {@link #keep} and leaves live is released after it.
 */
abstract class OneMagazineTest {
    static final int SIZE = 1024;
    final MemoryPool pool;
    final ThreadMagazine magazine;
    final int sizeClass = SizeClasses.indexOf(SIZE);
    final int segments = SizeClasses.chunkSizeOf(sizeClass) / SIZE;
    private final List<MagByteBuf> live = new ArrayList<>();

    OneMagazineTest(MagazineByteBufAllocator allocator) {
        this.pool = TestAccess.pool(allocator, false);
        this.magazine = new ThreadMagazine(pool.supply(), Thread.currentThread(), m -> MagazineDecay.NONE);
    }

    /** A 1 KiB buffer from the magazine's fast path. */
    MagByteBuf allocate() {
        return keep(magazine.allocate(sizeClass, SIZE, Integer.MAX_VALUE));
    }

    /** A buffer the test took another way, to be released after the test if it is still live. */
    <T extends MagByteBuf> T keep(T buf) {
        live.add(buf);
        return buf;
    }

    @AfterEach
    void releaseLeftovers() {
        for (MagByteBuf buf : live) {
            if (buf.refCnt() > 0) {
                buf.release();
            }
        }
    }
}
