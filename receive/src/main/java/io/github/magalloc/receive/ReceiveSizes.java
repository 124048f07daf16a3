package io.github.magalloc.receive;

import io.github.magalloc.MagazineByteBufAllocator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The sizes a receive buffer is guessed at: magalloc's size classes up to 32 KiB, so a buffer of a guessed size takes
 * exactly its class's segment with nothing rounded up; above them, runs of 8 KiB pages at one and a half and two
 * times each power of two (48 KiB, 64 KiB, 96 KiB, ...), which magalloc's large chunks serve with nothing rounded
 * either, up to 1 GiB.
 */
final class ReceiveSizes {
    /** The largest guess: 1 GiB, as Netty's own receive allocators allow. */
    static final int MAX = 1 << 30;
    private static final int[] SIZES = build();

    private ReceiveSizes() {
    }

    private static int[] build() {
        int[] classes = MagazineByteBufAllocator.sizeClasses();
        List<Integer> sizes = new ArrayList<>();
        for (int size : classes) {
            sizes.add(size);
        }
        for (int power = classes[classes.length - 1]; power < MAX; power <<= 1) {
            sizes.add(power + (power >>> 1));
            sizes.add(power << 1);
        }
        return sizes.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The index of the smallest size that holds {@code bytes}, or of the largest size if none does. */
    static int indexAtLeast(int bytes) {
        int found = Arrays.binarySearch(SIZES, bytes);
        int index = found >= 0 ? found : -found - 1;
        return Math.min(index, SIZES.length - 1);
    }

    /** The index of the largest size at most {@code bytes}, or 0 if none is. */
    static int indexAtMost(int bytes) {
        int found = Arrays.binarySearch(SIZES, bytes);
        int index = found >= 0 ? found : -found - 2;
        return Math.max(index, 0);
    }

    static int sizeAt(int index) {
        return SIZES[index];
    }
}
