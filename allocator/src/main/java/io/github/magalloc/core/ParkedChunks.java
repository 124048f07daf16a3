package io.github.magalloc.core;

/**
 * A magazine's parked chunks, per size class: the partial list (chunks with free segments, as far as the owner knows)
 * and the full list (chunks that had no free segment when last looked at; other threads' releases may refill them).
 * Each list is made at the first chunk parked in it, so a size class the magazine never uses costs no list. Owner
 * only, like the lists; the moves between them, and their invariants, are {@link Magazine}'s.
 */
final class ParkedChunks {
    private final ChunkList[] partial = new ChunkList[SizeClasses.COUNT];
    private final ChunkList[] full = new ChunkList[SizeClasses.COUNT];

    /** The partial list of the class, or null before its first chunk. */
    ChunkList partialIfMade(int sizeClass) {
        return partial[sizeClass];
    }

    /** The full list of the class, or null before its first chunk. */
    ChunkList fullIfMade(int sizeClass) {
        return full[sizeClass];
    }

    ChunkList partialOf(int sizeClass) {
        ChunkList list = partial[sizeClass];
        if (list == null) {
            list = partial[sizeClass] = new ChunkList();
        }
        return list;
    }

    ChunkList fullOf(int sizeClass) {
        ChunkList list = full[sizeClass];
        if (list == null) {
            list = full[sizeClass] = new ChunkList();
        }
        return list;
    }

    /** Whether {@code chunk} is in its class's full list (a full list is made before any chunk is in it). */
    boolean isInFullList(SizeClassChunk chunk) {
        return chunk.list != null && chunk.list == full[chunk.sizeClass];
    }

    /** Chunks parked for the class. */
    int count(int sizeClass) {
        return sizeOf(partial[sizeClass]) + sizeOf(full[sizeClass]);
    }

    /** Slab bytes of the chunks parked for the class. */
    long slabBytes(int sizeClass) {
        return slabBytes(partial[sizeClass]) + slabBytes(full[sizeClass]);
    }

    /** Segments of the chunks parked for the class that are not on their local free lists. */
    long segmentsInUse(int sizeClass) {
        return segmentsInUse(partial[sizeClass]) + segmentsInUse(full[sizeClass]);
    }

    private static int sizeOf(ChunkList list) {
        return list == null ? 0 : list.size();
    }

    private static long slabBytes(ChunkList list) {
        long bytes = 0;
        for (SizeClassChunk chunk = list == null ? null : list.first(); chunk != null; chunk = chunk.next) {
            bytes += chunk.slab.size;
        }
        return bytes;
    }

    private static long segmentsInUse(ChunkList list) {
        long segments = 0;
        for (SizeClassChunk chunk = list == null ? null : list.first(); chunk != null; chunk = chunk.next) {
            segments += chunk.segmentCount - chunk.freeCount;
        }
        return segments;
    }
}
