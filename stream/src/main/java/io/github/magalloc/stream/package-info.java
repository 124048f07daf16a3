/**
 * A paged {@link java.io.DataOutput}: {@link io.github.magalloc.stream.PagedByteBufOutput} writes into fixed-size
 * pages from any {@link io.netty.buffer.ByteBufAllocator} and hands the result back as a view, a detached zero-copy
 * composite buffer or a copy. See {@code docs/stream-output.md}.
 */
package io.github.magalloc.stream;
