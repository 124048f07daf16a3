package io.github.magalloc.e2e;

import io.github.magalloc.workload.SizeDistribution;

import java.util.random.RandomGenerator;

/**
 * Where the load generator takes request body sizes from: a workload, {@code SizeDistribution.SOCKET_PROXY::next},
 * or {@link #uniform} for odd sizes and edges (0 bytes, say) that the workloads rarely produce.
 */
@FunctionalInterface
public interface BodySizes {
    int next(RandomGenerator random);

    /** Uniform over min..max inclusive. */
    static BodySizes uniform(int min, int max) {
        if (min < 0 || max > SizeDistribution.MAX_SIZE || min > max) {
            throw new IllegalArgumentException(min + ".." + max);
        }
        return random -> min + random.nextInt(max - min + 1);
    }
}
