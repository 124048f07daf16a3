package io.github.magalloc.stream;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Hands out each page as a slice at a random non-zero offset of a larger region (heap array or direct memory),
 * surrounded by guard bytes and filled with garbage; remembers every page so tests can check the guards, and
 * overwrites a page with garbage when it is released (the memory stays mapped, so reading it would not crash but
 * would produce garbage a test can see).
 */
final class GuardedPageAllocator extends AbstractByteBufAllocator {
    private final Random random;
    private final boolean direct;
    final List<Region> regions = new ArrayList<>();

    GuardedPageAllocator(long seed, boolean direct) {
        super(direct);
        this.random = new Random(seed);
        this.direct = direct;
    }

    /** One page and its surroundings: {@code [0, pre)} guard, {@code [pre, pre + size)} page, then guard. */
    final class Region {
        final ByteBuffer memory; // the whole region, absolute indices
        final int pre;
        final int size;
        boolean released;

        Region(ByteBuffer memory, int pre, int size) {
            this.memory = memory;
            this.pre = pre;
            this.size = size;
        }

        void poison() {
            for (int i = 0; i < size; i++) {
                memory.put(pre + i, (byte) random.nextInt());
            }
            released = true;
        }

        void checkGuards() {
            for (int i = 0; i < memory.capacity(); i = i + 1 == pre ? pre + size : i + 1) {
                if (memory.get(i) != guard(i)) {
                    throw new AssertionError("guard byte " + i + " of a page region (page at " + pre + ", size "
                            + size + ") was overwritten");
                }
            }
        }
    }

    private static byte guard(int i) {
        return (byte) (0xA5 ^ i * 31);
    }

    private ByteBuffer newRegion(int pre, int size, int post) {
        int total = pre + size + post;
        ByteBuffer m = direct ? ByteBuffer.allocateDirect(total) : ByteBuffer.allocate(total);
        for (int i = 0; i < total; i++) {
            m.put(i, i < pre || i >= pre + size ? guard(i) : (byte) random.nextInt());
        }
        return m;
    }

    private ByteBuf page(int capacity) {
        int pre = 1 + random.nextInt(64);
        int post = 1 + random.nextInt(64);
        ByteBuffer m = newRegion(pre, capacity, post);
        Region region = new Region(m, pre, capacity);
        regions.add(region);
        ByteBuf whole;
        if (direct) {
            whole = new UnpooledDirectByteBuf(this, m, m.capacity()) {
                @Override
                protected void deallocate() {
                    region.poison();
                    super.deallocate(); // does not free memory it did not allocate
                }
            };
        } else {
            whole = new UnpooledHeapByteBuf(this, m.array(), m.capacity()) {
                @Override
                protected void deallocate() {
                    region.poison();
                    super.deallocate();
                }
            };
        }
        return whole.slice(pre, capacity); // shares the region's reference count
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return page(initialCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return page(initialCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    void checkGuards() {
        for (Region r : regions) {
            r.checkGuards();
        }
    }

    long livePages() {
        return regions.stream().filter(r -> !r.released).count();
    }
}
