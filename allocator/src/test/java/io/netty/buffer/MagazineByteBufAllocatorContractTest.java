package io.netty.buffer;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty's allocator contract ({@link AbstractByteBufAllocatorTest}) against magalloc. Like the buffer suites, it
 * uses one long-lived allocator per {@code preferDirect} value ({@link MagazineByteBufAllocator#DEFAULT} and one
 * with the other preference) shared by every test, except the tests that assert an allocator's own used memory from zero, which need
 * an allocator nobody else has touched.
 */
class MagazineByteBufAllocatorContractTest extends AbstractByteBufAllocatorTest<MagazineByteBufAllocator> {
    private static final boolean DEFAULT_PREFERS_DIRECT = MagazineByteBufAllocator.DEFAULT.config().preferDirect();
    private static final MagazineByteBufAllocator SHARED_OTHER = new MagazineByteBufAllocator(!DEFAULT_PREFERS_DIRECT);
    private static final Set<String> MEASURE_FROM_ZERO =
        Set.of("testUsedDirectMemory", "testUsedDirectMemoryHuge", "testUsedHeapMemory", "testUsedHeapMemoryHuge");

    private boolean freshAllocator;

    @BeforeEach
    void chooseAllocator(TestInfo test) {
        freshAllocator = MEASURE_FROM_ZERO.contains(test.getTestMethod().orElseThrow().getName());
    }

    @Override
    protected MagazineByteBufAllocator newAllocator(boolean preferDirect) {
        if (freshAllocator) {
            return new MagazineByteBufAllocator(preferDirect);
        }
        return preferDirect == DEFAULT_PREFERS_DIRECT ? MagazineByteBufAllocator.DEFAULT : SHARED_OTHER;
    }

    @Override
    protected MagazineByteBufAllocator newUnpooledAllocator() {
        return new MagazineByteBufAllocator(false);
    }

    /**
     * Used memory is the slabs magalloc holds, not the bytes requested. Netty's test allocates 1 KiB, then grows the
     * buffer to 2 KiB: the buffer moves to the 2 KiB class, and the 1 KiB class keeps its (now empty) current
     * chunk, so both slabs are held.
     */
    @Override
    protected long expectedUsedMemory(MagazineByteBufAllocator allocator, int capacity) {
        long firstSlab = TestAccess.slabSizeFor(1024);
        return capacity <= 1024 ? firstSlab : firstSlab + TestAccess.slabSizeFor(capacity);
    }

    /** Releasing keeps both chunks: they are their magazine's current chunks and are reused by the next buffer. */
    @Override
    protected long expectedUsedMemoryAfterRelease(MagazineByteBufAllocator allocator, int capacity) {
        return TestAccess.slabSizeFor(1024) + TestAccess.slabSizeFor(capacity);
    }

    /**
     * Netty's version expects its own Unsafe buffer classes. Same intent: where Netty can use Unsafe, direct
     * buffers expose their memory address; heap buffers always expose their array.
     */
    @Test
    @Override
    public void testUnsafeHeapBufferAndUnsafeDirectBuffer() {
        MagazineByteBufAllocator allocator = newAllocator(true);
        ByteBuf direct = allocator.directBuffer();
        assertEquals(PlatformDependent.hasUnsafe() || PlatformDependent.javaVersion() >= 22, direct.hasMemoryAddress());
        assertTrue(direct.isDirect());
        direct.release();
        ByteBuf heap = allocator.heapBuffer();
        assertTrue(heap.hasArray());
        heap.release();
    }
}
