package io.github.magalloc.bench;

import io.github.magalloc.workload.SizeDistribution;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The sizes a benchmark allocates, drawn before the measurement: benchmarks never sample in the measured op, they
 * walk a table of {@link #LENGTH} sizes drawn once with a fixed seed, so every allocator sees the same sequence.
 */
public final class SizeTable {
    /**
     * About 64K entries, and prime: a benchmark walking this table next to a slot order whose length is a power
     * of two never runs in step with it, so a slot does not get the same size back every round.
     */
    public static final int LENGTH = 65_521;
    public static final long SEED = 0x5EED_CAFEL;

    private SizeTable() {
    }

    /**
     * A size table for a benchmark param: a {@link SizeDistribution} name, or a decimal number for a fixed size.
     * Length is {@link #LENGTH}; callers walk it with a wrapping cursor.
     */
    public static int[] of(String spec) {
        int[] sizes = new int[LENGTH];
        if (!spec.isEmpty() && Character.isDigit(spec.charAt(0))) {
            Arrays.fill(sizes, Integer.parseInt(spec));
            return sizes;
        }
        SizeDistribution distribution = SizeDistribution.valueOf(spec);
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = distribution.next(random);
        }
        return sizes;
    }

    /**
     * {@link #LENGTH} sizes whose logarithm is uniform in [log min, log max] (each power of two as likely as the
     * next), with the same seed as {@link #of}.
     */
    public static int[] logUniform(int min, int max) {
        SplittableRandom random = new SplittableRandom(SEED);
        double logMin = Math.log(min);
        double logMax = Math.log(max);
        int[] sizes = new int[LENGTH];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = (int) Math.min(max, Math.round(Math.exp(logMin + random.nextDouble() * (logMax - logMin))));
        }
        return sizes;
    }
}
