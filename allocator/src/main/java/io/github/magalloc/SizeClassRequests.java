package io.github.magalloc;

import io.github.magalloc.core.SizeClasses;

/**
 * One snapshot of the allocations and bytes requested per size class since an allocator started, for one kind of
 * memory ({@link MagazineByteBufAllocatorMetric#sizeClassRequests}): summed over every magazine once, so that every
 * class's numbers come from the same moment and reading them all costs one pass over the magazines. With
 * {@link #handedOutBytes} they show the rounding of the class table on the traffic.
 */
public final class SizeClassRequests {
    /** Per size class c: {@code [2c]} allocations, {@code [2c + 1]} bytes requested. */
    private final long[] totals;

    SizeClassRequests(long[] totals) {
        this.totals = totals;
    }

    /**
     * Buffers of size class {@code index} allocated.
     *
     * @param index the size class, {@code 0 <= index < sizeClassCount()}
     * @return the number of buffers, 0 or more
     */
    public long allocations(int index) {
        return totals[index << 1];
    }

    /**
     * Bytes the allocations of size class {@code index} asked for (their initial capacities).
     *
     * @param index the size class, {@code 0 <= index < sizeClassCount()}
     * @return the bytes, 0 or more
     */
    public long requestedBytes(int index) {
        return totals[(index << 1) + 1];
    }

    /**
     * Bytes the allocations of size class {@code index} were given: allocations times the class's segment size.
     *
     * @param index the size class, {@code 0 <= index < sizeClassCount()}; another value throws
     *              {@link IndexOutOfBoundsException}
     * @return the bytes, 0 or more
     */
    public long handedOutBytes(int index) {
        return allocations(index) * SizeClasses.sizeOf(index);
    }

    /**
     * Size classes in the snapshot.
     *
     * @return the count, as {@link MagazineByteBufAllocatorMetric#sizeClassCount()}
     */
    public int sizeClassCount() {
        return SizeClasses.COUNT;
    }
}
