package io.github.magalloc.bench.receive;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * An allocator whose I/O buffers are heap buffers, as Elasticsearch's {@code NettyAllocator.NoDirectBuffers} makes
 * them. Netty's receive allocators take each read buffer from {@code ioBuffer}, and Netty 4.2's
 * {@code AbstractByteBufAllocator.ioBuffer} returns a direct buffer whenever Netty can free direct buffers reliably
 * ({@code PlatformDependent.canReliabilyFreeDirectBuffers()}, true on JDK 17 and on JDK 25) or the allocator pools
 * direct buffers (magalloc, adaptive and pooled all do), whatever the allocator prefers: every kind of
 * {@code AllocatorKind.create(false)} hands out direct read buffers. So a server that wants heap read buffers wraps
 * its allocator in this. Everything else is the wrapped allocator's, except that it does not claim to pool direct
 * buffers, so that a channel writing a heap buffer lets the JDK copy it rather than take a direct buffer from the
 * pool (again as Elasticsearch's wrapper does).
 */
final class HeapIoAllocator implements ByteBufAllocator {
    private final ByteBufAllocator delegate;

    HeapIoAllocator(ByteBufAllocator delegate) {
        this.delegate = delegate;
    }

    @Override
    public ByteBuf buffer() {
        return delegate.buffer();
    }

    @Override
    public ByteBuf buffer(int initialCapacity) {
        return delegate.buffer(initialCapacity);
    }

    @Override
    public ByteBuf buffer(int initialCapacity, int maxCapacity) {
        return delegate.buffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf ioBuffer() {
        return delegate.heapBuffer();
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity) {
        return delegate.heapBuffer(initialCapacity);
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity, int maxCapacity) {
        return delegate.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf heapBuffer() {
        return delegate.heapBuffer();
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity) {
        return delegate.heapBuffer(initialCapacity);
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity, int maxCapacity) {
        return delegate.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf directBuffer() {
        return delegate.directBuffer();
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity) {
        return delegate.directBuffer(initialCapacity);
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity, int maxCapacity) {
        return delegate.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public CompositeByteBuf compositeBuffer() {
        return delegate.compositeBuffer();
    }

    @Override
    public CompositeByteBuf compositeBuffer(int maxNumComponents) {
        return delegate.compositeBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer() {
        return delegate.compositeHeapBuffer();
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
        return delegate.compositeHeapBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer() {
        return delegate.compositeDirectBuffer();
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
        return delegate.compositeDirectBuffer(maxNumComponents);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    @Override
    public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
        return delegate.calculateNewCapacity(minNewCapacity, maxCapacity);
    }

    @Override
    public String toString() {
        return "HeapIoAllocator(" + delegate + ")";
    }
}
