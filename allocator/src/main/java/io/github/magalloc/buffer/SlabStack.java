package io.github.magalloc.buffer;

/**
 * A last-in first-out stack of slabs linked through the slabs themselves, so pushing and popping make no garbage and
 * an empty stack costs one reference. Not thread-safe: its owner guards it.
 */
public final class SlabStack {
    private Slab top;

    /** An empty stack. */
    public SlabStack() {
    }

    /**
     * Puts {@code slab} on top.
     *
     * @param slab a slab in no stack
     */
    public void push(Slab slab) {
        slab.nextStacked = top;
        top = slab;
    }

    /**
     * Takes the slab pushed last off the stack.
     *
     * @return that slab, or null if the stack is empty
     */
    public Slab pop() {
        Slab slab = top;
        if (slab != null) {
            top = slab.nextStacked;
            slab.nextStacked = null;
        }
        return slab;
    }
}
