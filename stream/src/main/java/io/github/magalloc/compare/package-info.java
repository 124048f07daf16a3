/**
 * Unsigned lexicographic comparison, equality and mismatch of {@link io.netty.buffer.ByteBuf}s and byte ranges:
 * {@link io.github.magalloc.compare.ByteBufComparison}.
 */
package io.github.magalloc.compare;
