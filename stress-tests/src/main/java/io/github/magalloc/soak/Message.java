package io.github.magalloc.soak;

import io.netty.buffer.ByteBuf;

/** A view (the buffer itself, a slice or a duplicate) that one holder owns one reference of. */
final class Message {
    final Allocation allocation;
    final ByteBuf view;
    /** Index in the allocation of the view's index 0. */
    final int offset;

    Message(Allocation allocation, ByteBuf view, int offset) {
        this.allocation = allocation;
        this.view = view;
        this.offset = offset;
    }
}
