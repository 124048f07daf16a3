package io.github.magalloc.micrometer;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class MagazineAllocatorMetricsTest {
    private static final int SMALL = 1024;
    /** Above the pooling limit (1 MiB by default): a huge buffer with memory of its own. */
    private static final int HUGE = 2 << 20;

    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final MagazineByteBufAllocatorMetric metric = allocator.metric();
    private final MeterRegistry registry = new SimpleMeterRegistry();

    /** A scrape reads three request counters per size class; they share one snapshot per memory type. */
    @Test
    void aScrapeSumsTheMagazinesRequestsOncePerMemoryType() {
        MagazineAllocatorMetrics binder = new MagazineAllocatorMetrics(allocator);
        binder.bindTo(registry);
        releaseAll(allocate(SMALL, 3));
        double requests = 0;
        for (Meter meter : registry.getMeters()) {
            for (Measurement measurement : meter.measure()) {
                if (meter.getId().getName().equals("magalloc.requests")) {
                    requests += measurement.getValue();
                }
            }
        }
        assertThat(requests).isEqualTo(3);
        assertThat(binder.directRequests.taken()).isEqualTo(1);
        assertThat(binder.heapRequests.taken()).isEqualTo(1);
    }

    @Test
    void gaugesAndCountersFollowAllocationAndRelease() {
        new MagazineAllocatorMetrics(allocator).bindTo(registry);
        assertThat(gauge("magalloc.memory.used", "direct")).isZero();
        assertThat(gauge("magalloc.memory.pooled.max", "direct")).isEqualTo(metric.reuseBudget());
        assertThat(gauge("magalloc.magazines", "direct", "owner", "shared")).isEqualTo(metric.sharedMagazines());

        List<ByteBuf> small = allocate(SMALL, 10);
        ByteBuf huge = allocator.directBuffer(HUGE);
        ByteBuf heap = allocator.heapBuffer(SMALL);
        assertThat(gauge("magalloc.memory.used", "direct"))
            .isEqualTo(metric.usedDirectMemory()).isGreaterThan(HUGE);
        assertThat(gauge("magalloc.memory.used", "heap")).isEqualTo(metric.usedHeapMemory()).isPositive();
        assertThat(gauge("magalloc.memory.huge", "direct")).isEqualTo(HUGE);
        assertThat(gauge("magalloc.chunks.active", "direct", "segment.size", "1024")).isEqualTo(1);
        assertThat(gauge("magalloc.chunks.active", "direct", "segment.size", "2048")).isZero();
        assertThat(counter("magalloc.chunks.activated", "direct", "segment.size", "1024")).isEqualTo(1);
        assertThat(counter("magalloc.slabs.allocated", "direct")).isEqualTo(2); // the chunk's and the huge buffer's
        assertThat(counter("magalloc.requests", "direct", "segment.size", "1024")).isEqualTo(10);
        assertThat(counter("magalloc.requests.requested", "direct", "segment.size", "1024")).isEqualTo(10 * SMALL);
        assertThat(counter("magalloc.requests.handed.out", "direct", "segment.size", "1024")).isEqualTo(10 * SMALL);
        assertThat(counter("magalloc.requests", "heap", "segment.size", "1024")).isEqualTo(1);
        assertThat(counter("magalloc.slabs.freed", "direct")).isZero();

        huge.release();
        heap.release();
        releaseAll(small);
        assertThat(gauge("magalloc.memory.huge", "direct")).isZero();
        assertThat(counter("magalloc.slabs.freed", "direct")).isEqualTo(1);

        allocator.trim();
        assertThat(gauge("magalloc.memory.used", "direct")).isZero();
        assertThat(gauge("magalloc.memory.used", "heap")).isZero();
        assertThat(gauge("magalloc.memory.pooled.free", "direct")).isZero();
        assertThat(gauge("magalloc.chunks.active", "direct", "segment.size", "1024")).isZero();
        assertThat(counter("magalloc.slabs.freed", "direct")).isEqualTo(2);
    }

    @Test
    void emptyChunksWaitInTheReusePool() {
        new MagazineAllocatorMetrics(allocator).bindTo(registry);
        // Two chunks' worth: the first chunk, no longer current, goes to the reuse pool once empty.
        List<ByteBuf> buffers = allocate(SMALL, 2 * 64 + 1);
        releaseAll(buffers);
        assertThat(gauge("magalloc.memory.pooled.free", "direct"))
            .isEqualTo(metric.pooledFreeMemory(true)).isPositive();
    }

    @Test
    void endedThreadsAndTheirMagazines() throws Exception {
        new MagazineAllocatorMetrics(allocator).bindTo(registry);
        AtomicReference<ByteBuf> leftBehind = new AtomicReference<>();
        AtomicReference<Double> threadMagazinesWhileAlive = new AtomicReference<>();
        Thread eventLoop = new DefaultThreadFactory("metrics-loop").newThread(() -> {
            leftBehind.set(allocator.directBuffer(SMALL));
            threadMagazinesWhileAlive.set(gauge("magalloc.magazines", "direct", "owner", "thread"));
        });
        eventLoop.start();
        eventLoop.join(TimeUnit.MINUTES.toMillis(1));
        assertThat(eventLoop.isAlive()).isFalse();

        assertThat(threadMagazinesWhileAlive.get()).isEqualTo(1);
        assertThat(gauge("magalloc.magazines", "direct", "owner", "thread")).isZero();
        assertThat(counter("magalloc.magazines.ended", "direct")).isEqualTo(1);
        assertThat(gauge("magalloc.memory.ended.threads", "direct"))
            .isEqualTo(metric.endedThreadsMemory(true)).isPositive();
        leftBehind.get().release();
        assertThat(gauge("magalloc.memory.ended.threads", "direct")).isZero();
    }

    @Test
    void everyMeterCarriesTheAllocatorIdAndTheGivenTags() {
        new MagazineAllocatorMetrics(allocator, Tags.of("application", "proxy")).bindTo(registry);
        String id = String.valueOf(allocator.hashCode());
        assertThat(registry.getMeters()).isNotEmpty().allSatisfy(meter -> {
            assertThat(meter.getId().getName()).startsWith("magalloc.");
            assertThat(meter.getId().getTag("id")).isEqualTo(id);
            assertThat(meter.getId().getTag("application")).isEqualTo("proxy");
            assertThat(meter.getId().getTag("memory.type")).isIn("heap", "direct");
        });
        // Per memory type: 5 memory gauges, 5 meters per size class, 2 slab counters, 3 magazine meters.
        assertThat(registry.getMeters()).hasSize(2 * (5 + 5 * metric.sizeClassCount() + 2 + 3));
        assertThat(registry.find("magalloc.memory.used").gauge().getId().getBaseUnit()).isEqualTo("bytes");
    }

    /** The registry must not keep a dropped allocator, and the memory it pools, reachable. */
    @Test
    void theRegistryDoesNotKeepADroppedAllocator() throws Exception {
        WeakReference<MagazineByteBufAllocator> dropped = bindAndDrop(registry);
        for (int i = 0; i < 100 && dropped.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(dropped.get()).as("allocator collected").isNull();
        assertThat(registry.get("magalloc.memory.used").tag("memory.type", "direct").gauge().value()).isNaN();
    }

    private static WeakReference<MagazineByteBufAllocator> bindAndDrop(MeterRegistry registry) {
        MagazineByteBufAllocator temporary = MagazineByteBufAllocator.builder().build();
        new MagazineAllocatorMetrics(temporary).bindTo(registry);
        return new WeakReference<>(temporary);
    }

    /**
     * Micrometer's own binder takes any ByteBufAllocatorMetricProvider: it reads used heap and direct memory, and
     * registers its pooled-arena meters only for Netty's PooledByteBufAllocator, so here it skips them.
     */
    @Test
    void micrometersNettyAllocatorMetricsWorksOnIt() {
        new NettyAllocatorMetrics(allocator).bindTo(registry);
        new MagazineAllocatorMetrics(allocator).bindTo(registry);
        ByteBuf direct = allocator.directBuffer(SMALL);
        ByteBuf heap = allocator.heapBuffer(SMALL);

        String id = String.valueOf(allocator.hashCode());
        for (String type : List.of("heap", "direct")) {
            double netty = registry.get("netty.allocator.memory.used")
                .tags("id", id, "allocator.type", "MagazineByteBufAllocator", "memory.type", type).gauge().value();
            assertThat(netty).isPositive().isEqualTo(gauge("magalloc.memory.used", type));
        }
        assertThat(registry.getMeters()).map(Meter::getId).map(Meter.Id::getName)
            .filteredOn(name -> name.startsWith("netty."))
            .containsOnly("netty.allocator.memory.used");
        direct.release();
        heap.release();
    }

    // ------------------------------------------------------------------ helpers

    private double gauge(String name, String memoryType, String... tags) {
        return registry.get(name).tag("memory.type", memoryType).tags(tags).gauge().value();
    }

    private double counter(String name, String memoryType, String... tags) {
        return registry.get(name).tag("memory.type", memoryType).tags(tags).functionCounter().count();
    }

    private List<ByteBuf> allocate(int size, int count) {
        List<ByteBuf> buffers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            buffers.add(allocator.directBuffer(size));
        }
        return buffers;
    }

    private static void releaseAll(List<ByteBuf> buffers) {
        for (ByteBuf buf : buffers) {
            assertThat(buf.release()).isTrue();
        }
        buffers.clear();
    }
}
