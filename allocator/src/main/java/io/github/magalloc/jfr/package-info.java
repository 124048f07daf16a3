/**
 * The allocator's flight-recorder events. Not API: the package is public only so that the allocator's other packages
 * can reach it, and any class or member in it may change or go in any release. The events themselves (their names
 * and fields) are what a recording shows; {@code docs/observability.md} lists them.
 */
package io.github.magalloc.jfr;
