package io.github.magalloc.soak;

import io.netty.buffer.ByteBuf;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** One allocation of the soak, shared by every holder of a view of it. */
final class Allocation {
    final ByteBuf root;
    final long seed;
    final boolean debug;
    /** Holders of a reference (views out there); the last one unregisters the range before releasing. */
    final AtomicInteger holders = new AtomicInteger(1);
    /** Set by the release that returned true: the one that deallocated. */
    final AtomicBoolean deallocated = new AtomicBoolean();
    LiveRanges.Range range;

    Allocation(ByteBuf root, long seed, boolean debug) {
        this.root = root;
        this.seed = seed;
        this.debug = debug;
    }
}
