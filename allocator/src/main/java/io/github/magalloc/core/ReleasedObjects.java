package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;

import java.util.Arrays;

/**
 * A thread magazine's buffer objects its owner released last, handed out first (LIFO) whatever the size class, each
 * bound to the segment it is handed out with, while the magazine hands out released objects first
 * ({@link ObjectReuse#RELEASED_FIRST}; otherwise empty). So each object, once made, follows the owner's releases: a
 * program that releases in a repeated order walks its objects in the order they were made, where segments' own objects
 * would be loaded at random (protocol 5 (buffer objects)). Owner only; plain fields.
 *
 * <p>Invariants:
 * <pre>
 *   every object here is free and is the owner's (its home is the magazine's SegmentSlot)
 *   count &gt; 0  =&gt;  no allocation hands out a segment's slot object (an object here may still sit in its slot)
 *   objects[i] == null  for  count &lt;= i &lt; capacity   (nothing that left is kept reachable, nor its slab)
 * </pre>
 * An object here may also be its old segment's slot object; the second rule is what keeps it from being handed out
 * twice. Releases beyond the capacity leave their objects in their slots.
 */
final class ReleasedObjects {
    /** A burst of releases this long keeps its objects for the allocations that follow; beyond it, slots do. */
    static final int CAPACITY = 16;

    private final MagByteBuf[] objects;
    private int count;

    /** @param capacity {@link #CAPACITY}, or 0 where objects are never reused (debug mode) */
    ReleasedObjects(int capacity) {
        this.objects = new MagByteBuf[capacity];
    }

    /** Keeps {@code object}, just released, unless full. */
    void push(MagByteBuf object) {
        int n = count;
        if (n < objects.length) {
            objects[n] = object;
            count = n + 1;
        }
    }

    /** The object released last, or null if none is kept. */
    MagByteBuf pop() {
        int n = count;
        if (n == 0) {
            return null;
        }
        MagByteBuf object = objects[--n];
        objects[n] = null;
        count = n;
        return object;
    }

    /** Cold: forgets every object (each stays in its slot, if it has one) before slot objects may be handed out. */
    void clear() {
        if (count > 0) { // writes nothing when empty: an ended magazine's hand-over calls this from any thread
            Arrays.fill(objects, 0, count, null);
            count = 0;
        }
    }

    int size() {
        return count;
    }
}
