package io.github.magalloc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A slab for requests above the largest size class, handed out by bumping an offset.
 *
 * <p>Unlike size-classed chunks this one is reference counted: one reference for the magazine that bumps it, one
 * per live buffer. Large requests are rare enough that an atomic per buffer does not matter, and counting is the
 * simplest correct way to know when memory cut at arbitrary offsets is free again. When the magazine drops its
 * reference and the last buffer is released, whichever thread sees the count reach zero gives the slab back.
 */
final class LargeChunk extends Chunk {
    /** Offsets are rounded to this so buffers start on cache-line boundaries. */
    static final int ALIGNMENT = 64;

    private static final VarHandle REFS;

    static {
        try {
            REFS = MethodHandles.lookup().findVarHandle(LargeChunk.class, "refs", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int refs = 1;
    /** Owner (the magazine's thread or lock holder) only. */
    private int nextOffset;

    LargeChunk(Slab slab, MemoryPool pool) {
        super(slab, pool);
    }

    static int alignedSize(int size) {
        return (size + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** Owner only: bumps out {@code alignedSize} bytes and returns their offset, or -1 if they do not fit. */
    int allocate(int alignedSize) {
        if (nextOffset + alignedSize > slab.size) {
            // Only the owner adds references, so refs == 1 means no buffer is left: start over. The volatile read
            // orders every releaser's last access to the memory before our reuse.
            if (refs != 1 || alignedSize > slab.size) {
                return -1;
            }
            nextOffset = 0;
        }
        int offset = nextOffset;
        nextOffset = offset + alignedSize;
        REFS.getAndAdd(this, 1);
        return offset;
    }

    /** Owner only: true when only the magazine's own reference is left (buffers only ever drop references). */
    boolean hasNoBuffers() {
        return refs == 1;
    }

    @Override
    boolean release(MagByteBuf buf, long threadId) {
        releaseReference();
        return true;
    }

    /** Drops one reference; the thread that drops the last one gives the slab back. */
    void releaseReference() {
        int before = (int) REFS.getAndAdd(this, -1);
        if (before == 1) {
            pool.releaseSlab(slab);
        } else if (before < 1) {
            throw new IllegalStateException("magalloc: large chunk released more often than referenced");
        }
    }
}
