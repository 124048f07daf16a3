package io.github.magalloc.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * Checks that every buffer passing it comes from the server's allocator: placed where the transport reads, after TLS
 * decrypts, where HTTP/2 hands frames to a stream and where a request is aggregated, it proves that each layer
 * allocates from the allocator under test rather than from {@code ByteBufAllocator.DEFAULT}. Slices, duplicates and
 * leak-aware wrappers are unwrapped to the buffer that owns the memory; a composite and each of its components must
 * come from it. Empty buffers hold no memory and are not counted.
 */
@ChannelHandler.Sharable
final class AllocatorCheck extends ChannelInboundHandlerAdapter {
    private final ByteBufAllocator expected;
    private final LongAdder checked = new LongAdder();
    private final LongAdder foreign = new LongAdder();
    private final ConcurrentLinkedQueue<String> foreignSamples = new ConcurrentLinkedQueue<>();

    AllocatorCheck(ByteBufAllocator expected) {
        this.expected = expected;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = msg instanceof ByteBuf ? (ByteBuf) msg
                : msg instanceof ByteBufHolder ? ((ByteBufHolder) msg).content() : null;
        if (buf != null) {
            check(buf, ctx.name());
        }
        ctx.fireChannelRead(msg);
    }

    void check(ByteBuf buf, String where) {
        if (buf.capacity() == 0) {
            return;
        }
        checked.increment();
        ByteBufAllocator from = ownerAllocator(buf);
        if (from != expected) {
            foreign.increment();
            if (foreignSamples.size() < 10) {
                foreignSamples.add(where + ": " + buf.getClass().getName() + " from " + from);
            }
        }
    }

    /** The allocator of the memory behind {@code buf}, or null if a composite mixes allocators. */
    static ByteBufAllocator ownerAllocator(ByteBuf buf) {
        if (buf instanceof CompositeByteBuf) {
            CompositeByteBuf composite = (CompositeByteBuf) buf;
            ByteBufAllocator alloc = composite.alloc();
            for (int i = 0; i < composite.numComponents(); i++) {
                if (ownerAllocator(composite.internalComponent(i)) != alloc) {
                    return null;
                }
            }
            return alloc;
        }
        ByteBuf inner = buf.unwrap();
        return inner != null ? ownerAllocator(inner) : buf.alloc();
    }

    long checked() {
        return checked.sum();
    }

    long foreign() {
        return foreign.sum();
    }

    /** The first few buffers that did not come from the allocator: where, class and allocator. */
    String foreignSamples() {
        return String.join("; ", foreignSamples);
    }
}
