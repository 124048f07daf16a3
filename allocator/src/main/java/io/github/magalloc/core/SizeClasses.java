package io.github.magalloc.core;

/**
 * The fixed table of size classes and its O(1) lookup.
 *
 * <p>The table mixes a geometric spine (four classes per power of two from 256 B up) with the spikes seen in
 * production traffic: 640 B and 1,024 B frames, 8 KiB and 16 KiB TLS-sized records plus 512 B of framing
 * (8,704 and 16,896 B). {@code docs/benchmarks.md} ("Memory") gives the internal waste of this table on the web
 * socket proxy trace. Every class is a multiple of {@link #QUANTUM}, so one byte table indexed by
 * {@code ceil(size / 16)} answers "which class" without a search.
 */
public final class SizeClasses {
    static final int QUANTUM_SHIFT = 4;
    static final int QUANTUM = 1 << QUANTUM_SHIFT;

    private static final int[] SIZES = {
        16, 32, 48, 64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024, 1280, 1536,
        2048, 2304, 2560, 3072, 4096, 4352, 5120, 6144, 8192, 8704, 10240, 12288,
        16384, 16896, 20480, 24576, 32768
    };

    /** Largest request served by a size class; anything above goes to large chunks. */
    public static final int MAX_SIZE = SIZES[SIZES.length - 1];
    /** Number of size classes; class indices go from 0 to {@code COUNT - 1}. */
    public static final int COUNT = SIZES.length;

    /** {@code CLASS_OF_QUANTA[ceil(size / QUANTUM)]} is the index of the smallest class that fits {@code size}. */
    private static final byte[] CLASS_OF_QUANTA = buildLookup();

    private SizeClasses() {
    }

    private static byte[] buildLookup() {
        byte[] lookup = new byte[(MAX_SIZE >> QUANTUM_SHIFT) + 1];
        int sizeClass = 0;
        for (int quanta = 0; quanta < lookup.length; quanta++) {
            while (SIZES[sizeClass] < quanta << QUANTUM_SHIFT) {
                sizeClass++;
            }
            lookup[quanta] = (byte) sizeClass;
        }
        return lookup;
    }

    /**
     * The class index for a request of {@code size} bytes: the smallest class that holds it.
     *
     * @param size the request in bytes, {@code 0 <= size <= MAX_SIZE} (not checked)
     * @return the class index, from 0 to {@code COUNT - 1}
     */
    public static int indexOf(int size) {
        return CLASS_OF_QUANTA[(size + QUANTUM - 1) >>> QUANTUM_SHIFT];
    }

    /**
     * The segment size of a class.
     *
     * @param index the class index, {@code 0 <= index < COUNT}
     * @return the size in bytes, a multiple of 16 from 16 to {@link #MAX_SIZE}
     */
    public static int sizeOf(int index) {
        return SIZES[index];
    }

    /**
     * Bytes of the slab that backs a chunk of this class: room for at least 16 segments, a power of two between
     * 64 KiB and 512 KiB so empty slabs can be re-cut for any class of the same slab size.
     *
     * @param index the class index, {@code 0 <= index < COUNT}
     * @return the slab size in bytes, a power of two from {@link #MIN_CHUNK_SIZE} to {@link #MAX_CHUNK_SIZE}
     */
    public static int chunkSizeOf(int index) {
        return chunkSize(SIZES[index] * 16);
    }

    /**
     * The slab for a magazine's first chunk of a class: room for 4 segments only (still at least 64 KiB). Rare
     * classes then cost little; a class that needs a second chunk gets full-sized ones.
     *
     * @param index the class index, {@code 0 <= index < COUNT}
     * @return the slab size in bytes, a power of two from {@link #MIN_CHUNK_SIZE} to {@link #MAX_CHUNK_SIZE}
     */
    public static int firstChunkSizeOf(int index) {
        return chunkSize(SIZES[index] * 4);
    }

    private static int chunkSize(int wanted) {
        int size = Integer.highestOneBit(wanted - 1) << 1;
        return Math.max(MIN_CHUNK_SIZE, Math.min(MAX_CHUNK_SIZE, size));
    }

    /** Smallest slab a size-classed chunk is cut from: 64 KiB. */
    public static final int MIN_CHUNK_SIZE = 64 * 1024;
    /** Largest slab a size-classed chunk is cut from, and the least {@code maxLargeChunkSize}: 512 KiB. */
    public static final int MAX_CHUNK_SIZE = 512 * 1024;
}
