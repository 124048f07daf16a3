package io.github.magalloc;

/**
 * Where a released buffer object goes back to, fixed when the object is made. Two kinds:
 * <ul>
 *   <li>{@link BufferObjectCache}: the object cache of the thread that allocated it (shared magazines, large and
 *       huge buffers): the object forgets its memory and waits on that thread's stack or queue;</li>
 *   <li>{@link SegmentSlot}: the object belongs to the segment of a thread magazine's chunk whose memory it holds,
 *       and stays in the chunk's slot for that segment, memory and all, until the owner hands the segment out
 *       again.</li>
 * </ul>
 * Either way an object is handed out again only by an allocation on the thread it was first handed out on
 * (protocol 5 in docs/design.md).
 */
interface ObjectHome {
    /**
     * Takes back {@code buf}, whose memory its chunk has just taken back, on the thread with id {@code threadId}.
     */
    void recycle(MagByteBuf buf, long threadId);
}
