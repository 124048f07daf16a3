package io.github.magalloc.stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The pages one {@link PagedByteBufOutput} owns: taken from its allocator on demand, each exactly {@code pageSize}
 * contiguous bytes with a big-endian NIO view that only this stream uses, all released together.
 */
final class PageList {
    private final ByteBufAllocator allocator;
    private final int pageSize;

    private ByteBuf[] pages = new ByteBuf[4];
    private ByteBuffer[] memories = new ByteBuffer[4];
    private int count;

    PageList(ByteBufAllocator allocator, int pageSize) {
        this.allocator = allocator;
        this.pageSize = pageSize;
    }

    ByteBufAllocator allocator() {
        return allocator;
    }

    int pageSize() {
        return pageSize;
    }

    /** Pages allocated so far. */
    int count() {
        return count;
    }

    /** The NIO view of page {@code index}, indices 0 .. pageSize; allocates the pages up to it first. */
    ByteBuffer memory(int index) {
        while (count <= index) {
            add();
        }
        return memories[index];
    }

    /** Page {@code index}, which must be allocated and not taken. */
    ByteBuf page(int index) {
        return pages[index];
    }

    /** Hands page {@code index} to the caller, who releases it from now on; {@link #release} will not. */
    ByteBuf take(int index) {
        ByteBuf page = pages[index];
        pages[index] = null;
        return page;
    }

    /** Pages holding bytes of {@code [0, size)}. */
    int pagesFor(int size) {
        return (int) (((long) size + pageSize - 1) / pageSize);
    }

    /** Bytes of {@code [0, size)} in page {@code index}. */
    int bytesIn(int index, int size) {
        return (int) Math.min(pageSize, size - (long) index * pageSize);
    }

    /** Releases every page not taken. The list is unusable afterwards. */
    void release() {
        for (int i = 0; i < count; i++) {
            if (pages[i] != null) {
                pages[i].release();
            }
        }
        pages = null;
        memories = null;
        count = 0;
    }

    private void add() {
        ByteBuf page = allocator.buffer(pageSize, pageSize);
        ByteBuffer memory;
        try {
            // Writes go through one NIO view per page: a composite or a short page cannot offer one.
            if (page.capacity() < pageSize || page.nioBufferCount() != 1) {
                throw new IllegalStateException("allocator returned a page that is not " + pageSize
                        + " contiguous bytes: " + page);
            }
            memory = page.nioBuffer(0, pageSize).order(ByteOrder.BIG_ENDIAN);
        } catch (RuntimeException e) {
            page.release();
            throw e;
        }
        if (count == pages.length) {
            pages = Arrays.copyOf(pages, count * 2);
            memories = Arrays.copyOf(memories, count * 2);
        }
        pages[count] = page;
        memories[count] = memory;
        count++;
    }
}
