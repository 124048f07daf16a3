package io.github.magalloc.bench.floor;

/**
 * The least state a thread-local pool of one size class needs: a LIFO stack of free segment indices and a LIFO
 * stack of released buffer objects, both touched by their owning thread only, so no atomics and no lookups.
 *
 * <p>Invariant: {@code freeSegments + liveBuffers == segments} and {@code spareObjects + liveBuffers == objects
 * made}; a buffer's segment is on the free stack exactly when its object is on the spare stack.
 */
final class FloorPool {
    private final int segmentSize;
    private final int[] freeSegments;
    private int freeTop;
    private final FloorByteBuf[] spareObjects;
    private int spareTop;

    FloorPool(int segmentSize, int segments) {
        this.segmentSize = segmentSize;
        this.freeSegments = new int[segments];
        this.spareObjects = new FloorByteBuf[segments];
        for (int i = 0; i < segments; i++) {
            freeSegments[freeTop++] = i;
            spareObjects[spareTop++] = new FloorByteBuf(this);
        }
    }

    /** Pop a segment, pop an object, re-initialise it. Throws when the pool is exhausted: the floor never grows. */
    FloorByteBuf allocate(int size) {
        if (size > segmentSize || freeTop == 0) {
            throw new IllegalStateException("floor pool: " + size + " B asked, segment " + segmentSize
                    + " B, free segments " + freeTop);
        }
        int segment = freeSegments[--freeTop];
        FloorByteBuf buf = spareObjects[--spareTop];
        spareObjects[spareTop] = null;
        buf.init(segment, size);
        return buf;
    }

    /** Netty's release saw the count reach zero: push segment and object back. */
    void free(FloorByteBuf buf) {
        freeSegments[freeTop++] = buf.segment;
        spareObjects[spareTop++] = buf;
    }

    int freeSegments() {
        return freeTop;
    }
}
