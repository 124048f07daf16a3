package io.github.magalloc.micrometer;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for a {@link MagazineByteBufAllocator}, read from its
 * {@link MagazineByteBufAllocator#metric() metric()}:
 *
 * <pre>{@code
 * new MagazineAllocatorMetrics(MagazineByteBufAllocator.DEFAULT).bindTo(registry);
 * }</pre>
 *
 * <table>
 *   <caption>Meters, each tagged {@code id} and {@code memory.type} ({@code heap} or {@code direct})</caption>
 *   <tr><th>name</th><th>type</th><th>more tags</th><th>what</th></tr>
 *   <tr><td>{@code magalloc.memory.used}</td><td>gauge, bytes</td><td></td>
 *       <td>memory held from the system: chunks in use, empty slabs in the reuse pool, huge buffers</td></tr>
 *   <tr><td>{@code magalloc.memory.pooled.free}</td><td>gauge, bytes</td><td></td>
 *       <td>empty chunks and slabs waiting in the reuse pool</td></tr>
 *   <tr><td>{@code magalloc.memory.pooled.max}</td><td>gauge, bytes</td><td></td>
 *       <td>the reuse pool's budget</td></tr>
 *   <tr><td>{@code magalloc.memory.huge}</td><td>gauge, bytes</td><td></td>
 *       <td>live buffers above the pooling limit, each with memory of its own</td></tr>
 *   <tr><td>{@code magalloc.memory.ended.threads}</td><td>gauge, bytes</td><td></td>
 *       <td>chunks still held by the magazines of threads that ended; 0 once their buffers are released</td></tr>
 *   <tr><td>{@code magalloc.chunks.active}</td><td>gauge</td><td>{@code segment.size}</td>
 *       <td>chunks of each size class in use</td></tr>
 *   <tr><td>{@code magalloc.chunks.activated}</td><td>counter</td><td>{@code segment.size}</td>
 *       <td>chunks a magazine put to use (new, or from the reuse pool)</td></tr>
 *   <tr><td>{@code magalloc.requests}</td><td>counter</td><td>{@code segment.size}</td>
 *       <td>buffers of each size class allocated</td></tr>
 *   <tr><td>{@code magalloc.requests.requested}</td><td>counter, bytes</td><td>{@code segment.size}</td>
 *       <td>bytes those allocations asked for; against the next, the rounding of the class table</td></tr>
 *   <tr><td>{@code magalloc.requests.handed.out}</td><td>counter, bytes</td><td>{@code segment.size}</td>
 *       <td>bytes those allocations were given (allocations times the segment size)</td></tr>
 *   <tr><td>{@code magalloc.slabs.allocated}</td><td>counter</td><td></td>
 *       <td>slabs taken from the system</td></tr>
 *   <tr><td>{@code magalloc.slabs.freed}</td><td>counter</td><td></td>
 *       <td>slabs given back to the system</td></tr>
 *   <tr><td>{@code magalloc.magazines}</td><td>gauge</td><td>{@code owner}</td>
 *       <td>live magazines: {@code thread} (event loops, attached threads) or {@code shared}</td></tr>
 *   <tr><td>{@code magalloc.magazines.ended}</td><td>counter</td><td></td>
 *       <td>thread magazines ended because their thread exited, detached or died</td></tr>
 * </table>
 *
 * <p>{@code id} is the allocator's {@code hashCode()}, the value Micrometer's own {@code NettyAllocatorMetrics}
 * puts in its {@code id} tag and magalloc's flight-recorder events in their {@code allocatorId} field, so the
 * three line up. Micrometer's {@code NettyAllocatorMetrics} works on this allocator too (it reports
 * {@code netty.allocator.memory.used}, the same number as {@code magalloc.memory.used}).
 *
 * <p>The meters hold the allocator's metric object weakly, as Micrometer's gauges and function counters do by
 * default. The metric object lives exactly as long as its allocator, so for {@link MagazineByteBufAllocator#DEFAULT}
 * (a static field) that makes no difference; for an allocator the application creates and later drops, a strong
 * reference from a registry that lives as long as the application would keep the allocator, and the memory it
 * pools, reachable for good. Once such an allocator is collected its gauges read {@code NaN}; remove its meters
 * from the registry when dropping it.
 */
public final class MagazineAllocatorMetrics implements MeterBinder {
    private final MagazineByteBufAllocatorMetric metric;
    private final Tags tags;
    /** What a scrape's request counters read, one snapshot per memory type per scrape. */
    final RecentRequests heapRequests = new RecentRequests(false);
    final RecentRequests directRequests = new RecentRequests(true);

    /**
     * Meters for {@code allocator}, tagged {@code id} and {@code memory.type} only.
     *
     * @param allocator the allocator to measure, not null
     * @throws NullPointerException if {@code allocator} is null
     */
    public MagazineAllocatorMetrics(MagazineByteBufAllocator allocator) {
        this(allocator, Tags.empty());
    }

    /**
     * Meters for {@code allocator}, with {@code tags} added to every meter (an application name, say).
     *
     * @param allocator the allocator to measure, not null
     * @param tags tags for every meter besides {@code id} and {@code memory.type}; may be empty
     * @throws NullPointerException if {@code allocator} is null
     */
    public MagazineAllocatorMetrics(MagazineByteBufAllocator allocator, Iterable<Tag> tags) {
        this.metric = allocator.metric();
        this.tags = Tags.of("id", String.valueOf(allocator.hashCode())).and(tags);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        bindMemoryType(registry, false);
        bindMemoryType(registry, true);
    }

    private void bindMemoryType(MeterRegistry registry, boolean direct) {
        Tags memory = tags.and("memory.type", direct ? "direct" : "heap");

        bytes(registry, "magalloc.memory.used", memory,
            "Memory held from the system: chunks in use, empty slabs in the reuse pool, huge buffers",
            m -> direct ? m.usedDirectMemory() : m.usedHeapMemory());
        bytes(registry, "magalloc.memory.pooled.free", memory,
            "Empty chunks and slabs waiting in the reuse pool", m -> m.pooledFreeMemory(direct));
        bytes(registry, "magalloc.memory.pooled.max", memory,
            "The reuse pool's budget", MagazineByteBufAllocatorMetric::reuseBudget);
        bytes(registry, "magalloc.memory.huge", memory,
            "Live buffers above the pooling limit, each with memory of its own", m -> m.hugeMemory(direct));
        bytes(registry, "magalloc.memory.ended.threads", memory,
            "Chunks still held by the magazines of threads that ended, for buffers not yet released",
            m -> m.endedThreadsMemory(direct));

        RecentRequests requests = direct ? directRequests : heapRequests;
        for (int sizeClass = 0; sizeClass < metric.sizeClassCount(); sizeClass++) {
            int index = sizeClass;
            Tags sizeTags = memory.and("segment.size", String.valueOf(metric.sizeClassSize(index)));
            Gauge.builder("magalloc.chunks.active", metric, m -> m.activeChunks(direct, index))
                .description("Chunks of the size class in use")
                .tags(sizeTags)
                .register(registry);
            FunctionCounter.builder("magalloc.chunks.activated", metric, m -> m.chunkActivations(direct, index))
                .description("Chunks of the size class a magazine put to use (new, or from the reuse pool)")
                .tags(sizeTags)
                .register(registry);
            FunctionCounter.builder("magalloc.requests", metric, m -> requests.of(m).allocations(index))
                .description("Buffers of the size class allocated")
                .tags(sizeTags)
                .register(registry);
            FunctionCounter.builder("magalloc.requests.requested", metric,
                    m -> requests.of(m).requestedBytes(index))
                .description("Bytes the size class's allocations asked for (their initial capacities)")
                .baseUnit(BaseUnits.BYTES)
                .tags(sizeTags)
                .register(registry);
            FunctionCounter.builder("magalloc.requests.handed.out", metric,
                    m -> requests.of(m).handedOutBytes(index))
                .description("Bytes the size class's allocations were given: allocations times the segment size")
                .baseUnit(BaseUnits.BYTES)
                .tags(sizeTags)
                .register(registry);
        }

        FunctionCounter.builder("magalloc.slabs.allocated", metric, m -> m.slabsAllocated(direct))
            .description("Slabs taken from the system")
            .tags(memory)
            .register(registry);
        FunctionCounter.builder("magalloc.slabs.freed", metric, m -> m.slabsFreed(direct))
            .description("Slabs given back to the system")
            .tags(memory)
            .register(registry);

        Gauge.builder("magalloc.magazines", metric, m -> m.threadLocalMagazines(direct))
            .description("Live magazines of threads (event loops, attached threads)")
            .tags(memory.and("owner", "thread"))
            .register(registry);
        Gauge.builder("magalloc.magazines", metric, MagazineByteBufAllocatorMetric::sharedMagazines)
            .description("Shared magazines, for the threads without one of their own")
            .tags(memory.and("owner", "shared"))
            .register(registry);
        FunctionCounter.builder("magalloc.magazines.ended", metric, m -> m.endedThreadMagazines(direct))
            .description("Thread magazines ended because their thread exited, detached or died")
            .tags(memory)
            .register(registry);
    }

    private void bytes(MeterRegistry registry, String name, Tags memory, String description,
                       ToDoubleFunction<MagazineByteBufAllocatorMetric> value) {
        Gauge.builder(name, metric, value)
            .description(description)
            .baseUnit(BaseUnits.BYTES)
            .tags(memory)
            .register(registry);
    }
}
