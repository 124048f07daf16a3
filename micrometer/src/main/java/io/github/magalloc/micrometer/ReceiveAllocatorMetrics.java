package io.github.magalloc.micrometer;

import io.github.magalloc.receive.ReceiveMetric;
import io.github.magalloc.receive.ReceiveMetricProvider;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.function.ToLongFunction;

/**
 * Micrometer meters for a receive allocator of module {@code magalloc-receive} ({@code RightSizingRecvByteBufAllocator},
 * or any allocator wrapped by {@code ReadBufferCutting}), read from its {@link ReceiveMetricProvider#metric()}:
 *
 * <pre>{@code
 * RightSizingRecvByteBufAllocator receive = new RightSizingRecvByteBufAllocator();
 * new ReceiveAllocatorMetrics(receive).bindTo(registry);
 * }</pre>
 *
 * <table>
 *   <caption>Counters, each tagged {@code id} (the receive allocator's {@code hashCode()})</caption>
 *   <tr><th>name</th><th>unit</th><th>what</th></tr>
 *   <tr><td>{@code magalloc.receive.reads}</td><td></td><td>reads that brought bytes</td></tr>
 *   <tr><td>{@code magalloc.receive.bytes.read}</td><td>bytes</td><td>the bytes they brought</td></tr>
 *   <tr><td>{@code magalloc.receive.capacity.allocated}</td><td>bytes</td>
 *       <td>capacity of the read buffers allocated</td></tr>
 *   <tr><td>{@code magalloc.receive.capacity.cut}</td><td>bytes</td>
 *       <td>capacity cut back to the bytes read before the pipeline saw the buffers</td></tr>
 * </table>
 *
 * <p>As {@link MagazineAllocatorMetrics} does with an allocator, the counters hold the receive allocator weakly.
 */
public final class ReceiveAllocatorMetrics implements MeterBinder {
    private final ReceiveMetricProvider receive;
    private final Tags tags;

    /**
     * Counters for {@code receive}, tagged {@code id} only.
     *
     * @param receive the receive allocator to measure, not null
     * @throws NullPointerException if {@code receive} is null
     */
    public ReceiveAllocatorMetrics(ReceiveMetricProvider receive) {
        this(receive, Tags.empty());
    }

    /**
     * Counters for {@code receive}, with {@code tags} added to every meter (an application name, a listening port,
     * say).
     *
     * @param receive the receive allocator to measure, not null
     * @param tags tags for every counter besides {@code id}; may be empty
     * @throws NullPointerException if {@code receive} is null
     */
    public ReceiveAllocatorMetrics(ReceiveMetricProvider receive, Iterable<Tag> tags) {
        this.receive = receive;
        this.tags = Tags.of("id", String.valueOf(receive.hashCode())).and(tags);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "magalloc.receive.reads", null, "Reads that brought bytes", ReceiveMetric::reads);
        counter(registry, "magalloc.receive.bytes.read", BaseUnits.BYTES, "Bytes the reads brought",
            ReceiveMetric::bytesRead);
        counter(registry, "magalloc.receive.capacity.allocated", BaseUnits.BYTES,
            "Capacity of the read buffers allocated", ReceiveMetric::capacityAllocated);
        counter(registry, "magalloc.receive.capacity.cut", BaseUnits.BYTES,
            "Capacity cut back to the bytes read before the pipeline saw the buffers", ReceiveMetric::capacityCutBack);
    }

    private void counter(MeterRegistry registry, String name, String unit, String description,
                         ToLongFunction<ReceiveMetric> value) {
        FunctionCounter.builder(name, receive, r -> value.applyAsLong(r.metric()))
            .description(description)
            .baseUnit(unit)
            .tags(tags)
            .register(registry);
    }
}
