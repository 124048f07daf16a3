package io.github.magalloc.core;

/**
 * Which buffer object a thread magazine's allocation hands out with a size-classed segment (protocol 5 (buffer
 * objects)). The owner's first release decides, from the segments in use then; a decay tick may later turn
 * {@link #RELEASED_FIRST} into {@link #SEGMENTS_OWN}, never back.
 */
enum ObjectReuse {
    /** Before the owner's first release: the segment's own object (nothing is released to reuse yet). */
    UNDECIDED,
    /** The object the owner released last ({@link ReleasedObjects}), bound to the segment; else the segment's own. */
    RELEASED_FIRST,
    /** Always the segment's own object, already bound to it; nothing is kept. */
    SEGMENTS_OWN
}
