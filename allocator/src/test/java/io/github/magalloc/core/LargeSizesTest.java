package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.TestAccess;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests above the size classes, as users make them: on event loops of one allocator, released on other threads,
 * outliving their thread, and with a few buffers living much longer than the rest (which must not pin memory).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class LargeSizesTest {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final MagazineByteBufAllocatorMetric metric = allocator.metric();
    /**
     * With no decay ticks the spare allowance alone decides what a magazine keeps; with ticks, direct chunks that
     * served in the period stay until a tick (DecayTest).
     */
    private final MagazineByteBufAllocator unticked = MagazineByteBufAllocator.builder().decayMillis(0).build();
    private final MagazineByteBufAllocatorMetric untickedMetric = unticked.metric();

    /**
     * One buffer in 50 lives 2,000 operations, the others 4 (sizes 40-512 KiB): the memory magazines hold (reserved
     * minus the reuse pool's empty slabs) stays within 2.2 times the live bytes at every step, and within 1.7 times at
     * the median. Bump-allocated chunks, freed only when every buffer in them is, would hold several times the live
     * bytes here: one long-lived buffer would keep its whole chunk.
     */
    @Test
    void aFewLongLivedBuffersDoNotPinTheirChunks() throws Exception {
        EventLoopThreads.runToEnd(() -> {
            SplittableRandom random = new SplittableRandom(11);
            ByteBuf[] longLived = new ByteBuf[40];
            ByteBuf[] shortLived = new ByteBuf[4];
            long live = 0;
            double worst = 0;
            List<Double> ratios = new ArrayList<>();
            for (int op = 0, longCursor = 0, shortCursor = 0; op < 20_000; op++) {
                int size = (int) Math.exp(Math.log(40 * KIB) + random.nextDouble() * Math.log(512.0 / 40));
                ByteBuf buf = allocator.heapBuffer(size);
                buf.setByte(size - 1, 1);
                ByteBuf[] slots = op % 50 == 0 ? longLived : shortLived;
                int slot = slots == longLived ? longCursor++ % longLived.length : shortCursor++ % shortLived.length;
                if (slots[slot] != null) {
                    live -= slots[slot].capacity();
                    slots[slot].release();
                }
                slots[slot] = buf;
                live += size;
                if (op >= 4_000 && op % 100 == 0) { // after every long-lived slot was filled twice
                    double ratio = (double) (metric.usedHeapMemory() - metric.pooledFreeMemory(false)) / live;
                    ratios.add(ratio);
                    worst = Math.max(worst, ratio);
                }
            }
            ratios.sort(null);
            // Measured (deterministic: one thread, seeded sizes): median 1.55, worst 1.86; the bump-allocated
            // chunks before page runs: median 5.14. A simulation of bare first fit over 1 MiB chunks: 1.42 and 1.56
            // (the magazine also keeps spare empty chunks: for heap, up to a quarter of the bytes in use).
            assertThat(ratios.get(ratios.size() / 2)).as("median held/live").isLessThan(1.7);
            assertThat(worst).as("worst held/live").isLessThan(2.2);
            releaseAll(longLived);
            releaseAll(shortLived);
            return null;
        });
    }

    @Test
    void pagesReleasedOnAnotherThreadAreReusedByTheOwner() throws Exception {
        AtomicReference<ByteBuf> handedOver = new AtomicReference<>();
        AtomicReference<String> memory = new AtomicReference<>();
        try (EventLoopThreads.Steps owner = new EventLoopThreads.Steps()) {
            owner.run(() -> {
                ByteBuf buf = allocator.directBuffer(100 * KIB);
                handedOver.set(buf);
                memory.set(TestAccess.memoryIdentity(buf));
            });
            handedOver.get().release(); // this plain thread gives the pages back directly
            owner.run(() -> {
                ByteBuf again = allocator.directBuffer(100 * KIB);
                assertThat(TestAccess.memoryIdentity(again)).as("first fit: the same pages").isEqualTo(memory.get());
                again.release();
            });
        }
    }

    @Test
    void emptyChunksBeyondOneGoBackAtTheNextLargeAllocation() throws Exception {
        EventLoopThreads.runToEnd(() -> {
            ByteBuf[] burst = new ByteBuf[30];
            for (int i = 0; i < burst.length; i++) {
                burst[i] = allocator.heapBuffer(256 * KIB);
            }
            assertThat(metric.activeLargeChunks(false)).isGreaterThan(2);
            releaseAll(burst);
            ByteBuf next = allocator.heapBuffer(256 * KIB);
            assertThat(metric.activeLargeChunks(false)).as("the chunk serving the new buffer only").isEqualTo(1);
            next.release();
            allocator.trim();
            allocator.heapBuffer(64).release(); // the thread's next refill acts on the trim request
            assertThat(metric.activeLargeChunks(false)).isZero();
            return null;
        });
    }

    /**
     * A stripe has no owner that comes back for its emptied large chunks: the plain threads that lock it next may
     * not ask for a large buffer for a long time. So the release that empties a chunk gives the spares back at once,
     * whichever thread it runs on; otherwise a burst's chunks would stay until the stripe's next large allocation.
     */
    @Test
    void aStripesEmptiedLargeChunksBeyondOneGoBackWithTheLastRelease() throws Exception {
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        MagazineByteBufAllocatorMetric stripeMetric = oneStripe.metric();
        ByteBuf[] burst = new ByteBuf[30];
        for (int i = 0; i < burst.length; i++) {
            burst[i] = oneStripe.heapBuffer(256 * KIB); // on this plain thread: the stripe's chunks
        }
        assertThat(stripeMetric.activeLargeChunks(false)).isGreaterThan(2);
        for (int i = 0; i < burst.length / 2; i++) {
            burst[i].release();
            burst[i] = null;
        }
        // The rest on another plain thread; get() rethrows whatever failed there.
        CompletableFuture.runAsync(() -> releaseAll(burst), runnable -> new Thread(runnable, "releaser").start())
            .get();
        assertThat(burst).as("released on the other thread").containsOnlyNulls();
        assertThat(stripeMetric.activeLargeChunks(false)).as("one spare chunk, with no allocation or trim since")
            .isEqualTo(1);
        oneStripe.trim();
        assertThat(stripeMetric.activeLargeChunks(false)).isZero();
    }

    /**
     * Which empty chunk a magazine keeps as its spare: where large slabs go back to the system, the biggest one, which
     * fits every request a smaller one fits; where they go to the reuse pool, the one in the lowest slot. Small chunks
     * made first (in the low slots) and a 1 MiB one made last all empty; the next large allocation keeps one of them.
     * Keeping the lowest slot where slabs go to the system fails this test on JDK 17. With no ticks, so that the
     * allowance alone decides.
     */
    @Test
    void theSpareKeptDependsOnWhereLargeSlabsGo() throws Exception {
        EventLoopThreads.runToEnd(() -> {
            ByteBuf[] buffers = new ByteBuf[13];
            for (int i = 0; i < buffers.length - 1; i++) {
                buffers[i] = unticked.directBuffer(40 * KIB);
            }
            buffers[buffers.length - 1] = unticked.directBuffer(900 * KIB);
            assertThat(untickedMetric.activeLargeChunks(true)).isGreaterThan(2);
            releaseAll(buffers);
            ByteBuf next = unticked.directBuffer(40 * KIB);
            assertThat(untickedMetric.activeLargeChunks(true)).isEqualTo(1);
            long heldByMagazines = untickedMetric.usedDirectMemory() - untickedMetric.pooledFreeMemory(true);
            if (DirectMemoryRelease.HERE == DirectMemoryRelease.AT_ONCE) { // checked by DirectMemoryReleaseTest
                assertThat(heldByMagazines).as("the 1 MiB chunk made last is kept").isEqualTo(MIB);
            } else {
                assertThat(heldByMagazines).as("the first small chunk is kept").isEqualTo(128 * KIB);
            }
            next.release();
            return null;
        });
    }

    /**
     * A large slab that is not a spare goes back to the system where Netty frees direct memory at once (the reuse
     * pool would only keep it reserved), and to the reuse pool where freeing is not cheap: heap memory, or direct
     * memory freed by closing an arena or by the GC (JDK 25 without native access). Both kinds, in the JVM this test
     * runs on, with no ticks, so that the allowance alone decides.
     */
    @Test
    void emptyLargeSlabsGoBackToTheSystemWhereFreeingIsCheap() throws Exception {
        EventLoopThreads.runToEnd(() -> {
            for (boolean direct : new boolean[] {true, false}) {
                ByteBuf[] burst = new ByteBuf[30];
                for (int i = 0; i < burst.length; i++) {
                    burst[i] = direct ? unticked.directBuffer(256 * KIB) : unticked.heapBuffer(256 * KIB);
                }
                assertThat(untickedMetric.activeLargeChunks(direct)).isGreaterThan(2);
                assertThat(untickedMetric.pooledFreeMemory(direct)).isZero();
                releaseAll(burst);
                ByteBuf next = direct ? unticked.directBuffer(256 * KIB) : unticked.heapBuffer(256 * KIB);
                assertThat(untickedMetric.activeLargeChunks(direct)).as("the chunk serving the new buffer only")
                    .isEqualTo(1);
                boolean freedAtOnce = direct && DirectMemoryRelease.HERE == DirectMemoryRelease.AT_ONCE;
                if (freedAtOnce) {
                    assertThat(untickedMetric.pooledFreeMemory(direct)).as("direct, freed at once: nothing pooled")
                        .isZero();
                    assertThat(untickedMetric.usedDirectMemory()).as("only the chunk in use").isLessThanOrEqualTo(MIB);
                } else {
                    assertThat(untickedMetric.pooledFreeMemory(direct))
                        .as((direct ? "direct" : "heap") + ": slabs pooled").isPositive();
                }
                next.release();
            }
            return null;
        });
    }

    @Test
    void buffersOutlivingTheirThreadGiveTheirChunksBackWhenReleased() throws Exception {
        List<ByteBuf> orphans = new ArrayList<>();
        EventLoopThreads.runToEnd(() -> {
            for (int i = 0; i < 12; i++) {
                orphans.add(allocator.directBuffer(200 * KIB).writeZero(200 * KIB));
            }
            return null;
        }); // the event loop has ended: its magazine let go of its large chunks
        assertThat(metric.endedThreadMagazines(true)).isEqualTo(1);
        assertThat(metric.activeLargeChunks(true)).isPositive();
        orphans.forEach(ByteBuf::release);
        assertThat(metric.activeLargeChunks(true)).isZero();
        allocator.trim();
        assertThat(metric.usedDirectMemory()).isZero();
    }

    private static void releaseAll(ByteBuf[] buffers) {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                buffers[i].release();
                buffers[i] = null;
            }
        }
    }
}
