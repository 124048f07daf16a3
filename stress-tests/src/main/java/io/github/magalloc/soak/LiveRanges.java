package io.github.magalloc.soak;

import io.netty.buffer.ByteBuf;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The memory every live soak buffer occupies, to prove no two live buffers overlap. A heap buffer lives at
 * {@code [arrayOffset, arrayOffset + capacity)} of its array (arrays compared by identity); a direct buffer at
 * {@code [memoryAddress, memoryAddress + capacity)}. One lock: correctness matters more than speed here.
 */
final class LiveRanges {
    /** The address space of direct memory; heap arrays are spaces of their own. */
    private static final Object DIRECT = new Object();

    /** A registered range. */
    static final class Range {
        final Object space;
        final long start;
        final long end;
        final String owner;

        Range(Object space, long start, long end, String owner) {
            this.space = space;
            this.start = start;
            this.end = end;
            this.owner = owner;
        }

        @Override
        public String toString() {
            return (space == DIRECT ? "direct" : "heap array@" + Integer.toHexString(System.identityHashCode(space)))
                + " [" + start + ", " + end + ") " + owner;
        }
    }

    private final Map<Object, TreeMap<Long, Range>> spaces = new IdentityHashMap<>();
    private int size;
    private int peak;

    /** Whether the memory of {@code buf} can be located (always for heap; for direct when Netty knows it). */
    static boolean locatable(ByteBuf buf) {
        return buf.hasArray() || buf.hasMemoryAddress();
    }

    /** The start of the buffer's memory in its space; unique among live buffers of the same space. */
    static long start(ByteBuf buf) {
        return buf.hasArray() ? buf.arrayOffset() : buf.memoryAddress();
    }

    static Range rangeOf(ByteBuf buf, String owner) {
        Object space = buf.hasArray() ? buf.array() : DIRECT;
        long start = start(buf);
        return new Range(space, start, start + Math.max(1, buf.capacity()), owner);
    }

    /** Registers {@code range}; returns null, or a description of a live range it overlaps (a failure). */
    synchronized String add(Range range) {
        TreeMap<Long, Range> space = spaces.computeIfAbsent(range.space, s -> new TreeMap<>());
        Map.Entry<Long, Range> below = space.floorEntry(range.start);
        if (below != null && below.getValue().end > range.start) {
            return range + " overlaps live " + below.getValue();
        }
        Map.Entry<Long, Range> above = space.ceilingEntry(range.start);
        if (above != null && above.getValue().start < range.end) {
            return range + " overlaps live " + above.getValue();
        }
        space.put(range.start, range);
        peak = Math.max(peak, ++size);
        return null;
    }

    synchronized void remove(Range range) {
        TreeMap<Long, Range> space = spaces.get(range.space);
        if (space == null || space.remove(range.start, range) == false) {
            throw new IllegalStateException("not registered: " + range);
        }
        size--;
        if (space.isEmpty()) {
            spaces.remove(range.space); // keeps no freed heap slab reachable
        }
    }

    synchronized int size() {
        return size;
    }

    synchronized int peak() {
        return peak;
    }
}
