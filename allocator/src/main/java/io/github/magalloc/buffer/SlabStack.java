package io.github.magalloc.buffer;

/**
 * A last-in first-out stack of slabs linked through the slabs themselves, so pushing and popping make no garbage and
 * an empty stack costs one reference. Not thread-safe: its owner guards it.
 */
public final class SlabStack {
    private Slab top;

    public void push(Slab slab) {
        slab.nextStacked = top;
        top = slab;
    }

    /** The slab pushed last, or null. */
    public Slab pop() {
        Slab slab = top;
        if (slab != null) {
            top = slab.nextStacked;
            slab.nextStacked = null;
        }
        return slab;
    }
}
