package io.github.magalloc;

import io.github.magalloc.core.SizeClasses;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bytes requested against bytes handed out, per size class, in the metric: counted on an event loop's own magazine
 * (seen once its chunk stops being current, or at the loop's next decay tick), on the stripes for plain threads, and
 * kept once the event loop's thread has ended.
 */
class RequestStatisticsTest {
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final MagazineByteBufAllocatorMetric metric = allocator.metric();

    @Test
    void requestsAreCountedPerClassOnEveryKindOfMagazine() throws Exception {
        int class1536 = SizeClasses.indexOf(1536);
        int class4096 = SizeClasses.indexOf(4096);
        Thread loop = new DefaultThreadFactory("requests-loop").newThread(() -> {
            for (int i = 0; i < 10; i++) {
                allocator.directBuffer(1460).release(); // the 1,536-byte class
            }
        });
        loop.start();
        loop.join();
        for (int i = 0; i < 3; i++) {
            ByteBuf buf = allocator.directBuffer(3000); // the 3,072-byte class, on a stripe
            buf.release();
        }
        allocator.heapBuffer(4096).release();

        assertThat(metric.allocations(true, class1536)).as("the ended event loop's").isEqualTo(10);
        assertThat(metric.requestedBytes(true, class1536)).isEqualTo(14_600);
        assertThat(metric.handedOutBytes(true, class1536)).isEqualTo(15_360);
        int class3072 = SizeClasses.indexOf(3000);
        assertThat(metric.allocations(true, class3072)).as("the stripes'").isEqualTo(3);
        assertThat(metric.requestedBytes(true, class3072)).isEqualTo(9_000);
        assertThat(metric.allocations(false, class4096)).isEqualTo(1);
        assertThat(metric.allocations(true, class4096)).isZero();
        assertThat(metric.requestedBytes(false, class4096)).isEqualTo(metric.handedOutBytes(false, class4096));
    }

    /**
     * A buffer that grows or is cut moves to other memory, which is no request of the user's: only the first
     * allocation counts, on an event loop's magazine and on the stripes alike.
     */
    @Test
    void aMoveIsNotCountedAsARequest() throws Exception {
        Thread loop = new DefaultThreadFactory("requests-loop").newThread(this::allocateGrowAndCut);
        loop.start();
        loop.join();
        allocateGrowAndCut();
        SizeClassRequests direct = metric.sizeClassRequests(true);
        assertThat(direct.allocations(SizeClasses.indexOf(100))).as("the allocations").isEqualTo(2);
        for (int grownTo : new int[] {5000, 10_000, 40}) {
            assertThat(direct.allocations(SizeClasses.indexOf(grownTo))).as("moved to %d bytes", grownTo).isZero();
        }
    }

    /** 100 bytes (the 112-byte class), grown to 5,000 (a move, with room for 10,000), then cut to 40 (a move). */
    private void allocateGrowAndCut() {
        ByteBuf buf = allocator.directBuffer(100);
        buf.capacity(5000);
        buf.capacity(40);
        assertThat(buf.capacity()).isEqualTo(40);
        buf.release();
    }

    /** One snapshot holds every class's numbers from one moment: handed out is allocations times the class's size. */
    @Test
    void aSnapshotsNumbersAgree() {
        for (int i = 0; i < 50; i++) {
            allocator.directBuffer(1 + 37 * i).release();
        }
        SizeClassRequests requests = metric.sizeClassRequests(true);
        long total = 0;
        for (int c = 0; c < requests.sizeClassCount(); c++) {
            assertThat(requests.handedOutBytes(c)).isEqualTo(requests.allocations(c) * SizeClasses.sizeOf(c));
            assertThat(requests.requestedBytes(c)).isLessThanOrEqualTo(requests.handedOutBytes(c));
            total += requests.allocations(c);
        }
        assertThat(total).isEqualTo(50);
    }

    @Test
    void aLiveEventLoopsRequestsShowAtItsNextDecayTick() throws Exception {
        MagazineByteBufAllocator ticking = MagazineByteBufAllocator.builder().decayMillis(50).build();
        DefaultEventExecutor loop = new DefaultEventExecutor();
        try {
            loop.submit(() -> {
                for (int i = 0; i < 5; i++) {
                    ticking.directBuffer(700).release(); // the 768-byte class
                }
            }).get();
            int class768 = SizeClasses.indexOf(768);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // only a bug reaches it
            while (ticking.metric().allocations(true, class768) < 5 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(ticking.metric().allocations(true, class768)).isEqualTo(5);
            assertThat(ticking.metric().requestedBytes(true, class768)).isEqualTo(3_500);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }
}
