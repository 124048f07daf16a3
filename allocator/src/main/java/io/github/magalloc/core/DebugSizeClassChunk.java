package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;
import io.github.magalloc.buffer.Slab;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A size-classed chunk in debug mode: it tracks which segments buffers hold, so that a segment handed out twice or
 * released twice fails at once and names the segment, it checks that a segment was not written since it was freed
 * before handing it out ({@link DebugMemory}), and it keeps no segment objects (every allocation gets a new one, so
 * a stale reference never reaches another buffer). A type of its own, made only by a pool in debug mode:
 * the production chunk's allocation and release carry no debug check, and where this class is never loaded the JIT
 * knows it.
 */
final class DebugSizeClassChunk extends SizeClassChunk {
    /** 1 for a segment held by a buffer, 0 for a free one; any thread (a release may come from anywhere). */
    private final AtomicIntegerArray inUse;

    DebugSizeClassChunk(Slab slab, PoolContext context, Magazine magazine, int sizeClass) {
        super(slab, context, magazine, sizeClass);
        this.inUse = new AtomicIntegerArray(segmentCount);
    }

    @Override
    int allocateSegment() {
        checkNextUnwritten();
        int segment = super.allocateSegment();
        if (segment >= 0) {
            markInUse(segment);
        }
        return segment;
    }

    @Override
    MagByteBuf allocateBound(SegmentSlot home) {
        checkNextUnwritten();
        MagByteBuf buf = super.allocateBound(home);
        if (buf != null) {
            markInUse(buf.segment());
        }
        return buf;
    }

    @Override
    protected void release(MagByteBuf buf, long threadId) {
        int segment = buf.segment();
        if (!inUse.compareAndSet(segment, 1, 0)) {
            throw new IllegalStateException("magalloc debug: segment " + segment + " released while free");
        }
        super.release(buf, threadId);
    }

    @Override
    boolean keepsObjects() {
        return false;
    }

    /** The segment the next pop takes, checked before it is taken, so that a report takes nothing. */
    private void checkNextUnwritten() {
        int n = freeCount;
        if (n > 0) {
            DebugMemory.checkUnwrittenSinceFreed(slab, offsetOf(freeSegments[n - 1]), segmentSize);
        }
    }

    private void markInUse(int segment) {
        if (!inUse.compareAndSet(segment, 0, 1)) {
            throw new IllegalStateException("magalloc debug: segment " + segment + " handed out twice");
        }
    }
}
