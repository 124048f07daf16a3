package io.github.magalloc.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SizeClassesTest {
    @Test
    void everySizeMapsToTheSmallestClassThatFits() {
        for (int size = 0; size <= SizeClasses.MAX_SIZE; size++) {
            int index = SizeClasses.indexOf(size);
            assertThat(SizeClasses.sizeOf(index)).as("class of %d", size).isGreaterThanOrEqualTo(size);
            if (index > 0) {
                assertThat(SizeClasses.sizeOf(index - 1)).as("class below that of %d", size).isLessThan(size);
            }
        }
    }

    @Test
    void classesAreIncreasingMultiplesOfTheQuantum() {
        for (int i = 0; i < SizeClasses.COUNT; i++) {
            assertThat(SizeClasses.sizeOf(i) % SizeClasses.QUANTUM).isZero();
            if (i > 0) {
                assertThat(SizeClasses.sizeOf(i)).isGreaterThan(SizeClasses.sizeOf(i - 1));
            }
        }
        assertThat(SizeClasses.sizeOf(SizeClasses.COUNT - 1)).isEqualTo(SizeClasses.MAX_SIZE);
    }

    @Test
    void chunkSizesArePowersOfTwoWithRoomForManySegments() {
        for (int i = 0; i < SizeClasses.COUNT; i++) {
            int chunkSize = SizeClasses.chunkSizeOf(i);
            assertThat(Integer.bitCount(chunkSize)).isEqualTo(1);
            assertThat(chunkSize).isBetween(SizeClasses.MIN_CHUNK_SIZE, SizeClasses.MAX_CHUNK_SIZE);
            assertThat(chunkSize / SizeClasses.sizeOf(i)).as("segments of class %d", i).isGreaterThanOrEqualTo(15);
            // 64 KiB of 16-byte segments is the most: 4,096 ints of free-list metadata per chunk.
            assertThat(chunkSize / SizeClasses.sizeOf(i)).isLessThanOrEqualTo(4096);
        }
    }

    @Test
    void firstChunksAreSmallButHoldSeveralSegments() {
        for (int i = 0; i < SizeClasses.COUNT; i++) {
            int first = SizeClasses.firstChunkSizeOf(i);
            assertThat(Integer.bitCount(first)).isEqualTo(1);
            assertThat(first).isBetween(SizeClasses.MIN_CHUNK_SIZE, SizeClasses.chunkSizeOf(i));
            assertThat(first / SizeClasses.sizeOf(i)).as("segments of class %d", i).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void productionSpikesHaveTheirOwnClass() {
        // 636 B and 16,639 B are the heaviest sizes of the web socket proxy trace (docs/design.md).
        assertThat(SizeClasses.sizeOf(SizeClasses.indexOf(636))).isEqualTo(640);
        assertThat(SizeClasses.sizeOf(SizeClasses.indexOf(16639))).isEqualTo(16896);
        assertThat(SizeClasses.sizeOf(SizeClasses.indexOf(8447))).isEqualTo(8704);
    }
}
