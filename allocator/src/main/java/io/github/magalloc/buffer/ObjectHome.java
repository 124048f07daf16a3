package io.github.magalloc.buffer;

/**
 * Where a released buffer object goes back to, fixed when the object is made. The allocator decides what a home
 * is; its rule is that an object is handed out again only by an allocation on the thread it was first handed out
 * on, so that a stale reference sees a released object, not another thread's live buffer.
 */
public interface ObjectHome {
    /**
     * Takes back {@code buf}, whose memory its {@link BufferMemory} just took back, on thread {@code threadId}.
     *
     * @param buf the released buffer object, of this home
     * @param threadId {@link Thread#getId()} of the calling thread
     */
    void recycle(MagByteBuf buf, long threadId);
}
