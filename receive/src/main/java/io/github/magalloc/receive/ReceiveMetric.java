package io.github.magalloc.receive;

/**
 * What a receive allocator's read buffers held against what the reads brought, summed over every channel that used
 * it since it was made: reads that brought bytes, the bytes, the capacity of every buffer allocated for a read (also
 * for the last read of each loop, which finds nothing and whose buffer the channel frees at once), and the capacity
 * cut back to the bytes read before the pipeline saw the buffers.
 *
 * @param reads the reads that brought at least one byte
 * @param bytesRead the bytes those reads brought
 * @param capacityAllocated the capacity, in bytes, of every read buffer allocated
 * @param capacityCutBack the capacity, in bytes, given back by cutting read buffers filled at most half to their bytes
 */
public record ReceiveMetric(long reads, long bytesRead, long capacityAllocated, long capacityCutBack) {
}
