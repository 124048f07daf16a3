package io.github.magalloc.stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the bytes written so far, {@code [0, size)}, back out of a stream's pages: zero-copy views and a detached
 * composite, or copies. Keeps the views it hands out so that closing the stream can invalidate them.
 */
final class PageReader {
    private final PageList pages;
    private List<ByteBuf> views;

    PageReader(PageList pages) {
        this.pages = pages;
    }

    /** A read-only composite of retained slices of the pages; released by {@link #releaseViews}. */
    ByteBuf view(int size) {
        CompositeByteBuf c = newComposite(size);
        for (int i = 0, used = pages.pagesFor(size); i < used; i++) {
            c.addComponent(true, pages.page(i).retainedSlice(0, pages.bytesIn(i, size)));
        }
        if (views == null) {
            views = new ArrayList<>();
        }
        views.add(c);
        return c.asReadOnly();
    }

    /** A composite of the used pages themselves, which the caller owns from now on. */
    CompositeByteBuf detach(int size) {
        CompositeByteBuf c = newComposite(size);
        for (int i = 0, used = pages.pagesFor(size); i < used; i++) {
            ByteBuf page = pages.take(i);
            page.setIndex(0, pages.bytesIn(i, size));
            c.addComponent(true, page);
        }
        return c;
    }

    byte[] toByteArray(int size) {
        byte[] out = new byte[size];
        for (int i = 0, used = pages.pagesFor(size); i < used; i++) {
            pages.memory(i).get(0, out, i * pages.pageSize(), pages.bytesIn(i, size));
        }
        return out;
    }

    /** An exactly sized copy from {@code alloc}. */
    ByteBuf copy(ByteBufAllocator alloc, int size) {
        ByteBuf out = alloc.buffer(size, size);
        for (int i = 0, used = pages.pagesFor(size); i < used; i++) {
            out.writeBytes(pages.memory(i).slice(0, pages.bytesIn(i, size)));
        }
        return out;
    }

    /** Releases every view handed out, so that using one afterwards fails instead of reading recycled pages. */
    void releaseViews() {
        if (views == null) {
            return;
        }
        for (ByteBuf v : views) {
            if (v.refCnt() > 0) { // tolerate a caller who released a view against the advice
                v.release();
            }
        }
        views = null;
    }

    private CompositeByteBuf newComposite(int size) {
        int used = pages.pagesFor(size);
        return new CompositeByteBuf(pages.allocator(), used > 0 && pages.page(0).isDirect(), Math.max(1, used));
    }
}
