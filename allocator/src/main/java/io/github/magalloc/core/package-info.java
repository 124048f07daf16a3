/**
 * The allocator's machinery: memory pools, magazines, chunks, the reuse pool and the background upkeep. Not API: the
 * package is public only so that the allocator's other packages can reach it, and any class or member in it may
 * change or go in any release. Applications use {@link io.github.magalloc.MagazineByteBufAllocator} and its
 * configuration and metric; {@code docs/design.md} describes how the parts work together.
 */
package io.github.magalloc.core;
