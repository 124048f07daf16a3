package io.github.magalloc.soak;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The soak's record of every buffer from its allocation to its last release: while it lives, its memory range and
 * its object are registered (so that memory handed out twice, or one buffer in two hands, shows), its pattern is
 * checked as it goes from hand to hand, and the counts kept here must match at the end. Each problem goes to the
 * soak's {@code fail}.
 */
final class Ledger {
    private final LiveRanges ranges = new LiveRanges();
    private final LiveObjects objects = new LiveObjects();
    private final AtomicLong generations = new AtomicLong();
    private final Consumer<String> fail;

    final LongAdder allocations = new LongAdder();
    final LongAdder allocatedBytes = new LongAdder();
    final LongAdder checkedBytes = new LongAdder();
    final LongAdder finalReleases = new LongAdder();
    final LongAdder deallocations = new LongAdder();
    final LongAdder unlocatable = new LongAdder();

    Ledger(Consumer<String> fail) {
        this.fail = fail;
    }

    /** A fresh buffer from {@code alloc}, filled with its pattern and registered, as its one holder's message. */
    Message allocate(MagazineByteBufAllocator alloc, boolean debug, int size, boolean direct) {
        boolean wasInterrupted = Thread.currentThread().isInterrupted();
        ByteBuf buf = direct ? alloc.directBuffer(size) : alloc.heapBuffer(size);
        if (wasInterrupted && !Thread.currentThread().isInterrupted()) {
            fail.accept("allocation cleared the interrupt status of " + Thread.currentThread().getName());
        }
        if (buf.capacity() != size || buf.refCnt() != 1 || buf.writerIndex() != 0) {
            fail.accept("fresh buffer " + buf + " for " + size + " bytes");
        }
        long key = LiveRanges.locatable(buf) ? LiveRanges.start(buf) : 0;
        Allocation a = new Allocation(buf, DataPattern.seed(generations.incrementAndGet(), key), debug);
        DataPattern.fill(buf, a.seed, 0, size);
        buf.writerIndex(size);
        register(a, Thread.currentThread().getName());
        String twice = objects.add(buf, Thread.currentThread().getName());
        if (twice != null) {
            fail.accept("OBJECT IN TWO HANDS: " + twice);
        }
        allocations.increment();
        allocatedBytes.add(size);
        return new Message(a, buf, 0);
    }

    void register(Allocation a, String owner) {
        if (!LiveRanges.locatable(a.root)) {
            unlocatable.increment();
            return;
        }
        LiveRanges.Range range = LiveRanges.rangeOf(a.root, owner + (a.debug ? " debug" : ""));
        String overlap = ranges.add(range);
        if (overlap != null) {
            fail.accept("OVERLAP: " + overlap);
            return;
        }
        a.range = range;
    }

    /** Drops the registered range of {@code a}, if it has one. */
    void unregister(Allocation a) {
        if (a.range != null) {
            ranges.remove(a.range);
        }
    }

    void check(Message m, String where) {
        int length = m.view.capacity();
        int bad = DataPattern.check(m.view, m.offset, m.allocation.seed, length);
        if (bad >= 0) {
            fail.accept("pattern broken (" + where + ") at byte " + (m.offset + bad) + " of " + m.allocation.range
                + ": 0x" + Integer.toHexString(m.view.getByte(bad) & 0xff));
        }
        checkedBytes.add(length);
    }

    /**
     * Releases the holder's reference. The holder that drops the count of holders to 0 unregisters range and object
     * first; which release deallocates depends on the order of the release() calls themselves (another holder may
     * still be between its own count and its release), so what must hold is: exactly one release of each allocation
     * returns true.
     */
    void release(Message m) {
        Allocation a = m.allocation;
        boolean last = a.holders.decrementAndGet() == 0;
        if (last) {
            unregister(a);
            String problem = objects.remove(a.root);
            if (problem != null) {
                fail.accept(problem);
            }
            finalReleases.increment();
        }
        if (m.view.release()) {
            deallocations.increment();
            if (!a.deallocated.compareAndSet(false, true)) {
                fail.accept("a second release() of " + m.view + " returned true: deallocated twice");
            }
        }
    }

    int liveRanges() {
        return ranges.size();
    }

    int peakLiveRanges() {
        return ranges.peak();
    }

    /** Once every buffer is released: nothing registered, one last holder and one deallocation per allocation. */
    void checkAllReleased() {
        if (ranges.size() != 0) {
            fail.accept(ranges.size() + " buffers still registered at the end");
        }
        if (objects.size() != 0) {
            fail.accept(objects.size() + " buffer objects still registered at the end");
        }
        if (finalReleases.sum() != allocations.sum() || deallocations.sum() != allocations.sum()) {
            fail.accept(allocations.sum() + " allocations but " + finalReleases.sum() + " last holders and "
                + deallocations.sum() + " releases that returned true");
        }
    }
}
