package io.github.magalloc.receive;

/** A receive allocator that counts what its read buffers held against what the reads brought. */
public interface ReceiveMetricProvider {
    /**
     * The counts since the allocator was made, over every channel that used it.
     *
     * @return a new snapshot of the counts; counts from channels reading meanwhile may be partly in it
     */
    ReceiveMetric metric();
}
