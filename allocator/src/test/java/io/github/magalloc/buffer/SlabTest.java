package io.github.magalloc.buffer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SlabTest {
    /**
     * The system gives 16-byte alignment; direct slabs must start on a cache line anyway (see
     * {@link Slab#ALIGNMENT}), and keep exactly the asked size, so the bytes past it are never handed out.
     */
    @Test
    void directSlabsStartOnACacheLineAndHaveTheirSize() {
        for (int size : new int[] {64 * 1024, 96 * 1024, 128 * 1024, 256 * 1024, 1 << 20, 4 << 20, 12_345}) {
            for (int i = 0; i < 4; i++) {
                Slab slab = Slab.direct(size);
                try {
                    assertThat(slab.buffer.alignmentOffset(0, Slab.ALIGNMENT)).as("size %d", size).isZero();
                    assertThat(slab.buffer.capacity()).as("size %d", size).isEqualTo(size);
                    if (slab.hasAddress) {
                        assertThat(slab.address % Slab.ALIGNMENT).as("address, size %d", size).isZero();
                    }
                    slab.buffer.put(size - 1, (byte) 1); // the last byte is ours
                } finally {
                    slab.free();
                }
            }
        }
    }
}
