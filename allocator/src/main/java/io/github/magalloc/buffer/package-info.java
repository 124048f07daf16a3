/**
 * The buffer objects magalloc hands out and the slabs their memory is cut from. Not API: the package is public only
 * so that the allocator's other packages can reach it, and any class or member in it may change or go in any release.
 * Applications use {@link io.github.magalloc.MagazineByteBufAllocator} and see these buffers as Netty
 * {@link io.netty.buffer.ByteBuf}s.
 */
package io.github.magalloc.buffer;
