package io.github.magalloc.workload;

import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * The buffer sizes of the two workloads every harness runs: the JMH benchmarks (through precomputed tables), the
 * end-to-end load generator and the soak. The caller owns the random source, so a seeded caller draws the same sizes
 * on every run.
 */
public enum SizeDistribution {
    /** Sizes and frequencies observed in a web socket proxy (87,759 samples, 9 B to 18 KiB, mean 2,534 B). */
    SOCKET_PROXY {
        @Override
        public int next(RandomGenerator random) {
            return SocketProxySizes.INSTANCE.draw(random);
        }
    },
    /** Log-normal, mu 7.6, sigma 1.0 (median about 2 KiB, p99 about 20 KiB), rounded and clamped to 8 B..1 MiB. */
    API_GATEWAY {
        @Override
        public int next(RandomGenerator random) {
            // Box-Muller by hand rather than nextGaussian(): nextGaussian's algorithm differs between generators and
            // JDK releases, and a seeded benchmark table must hold the same sizes on JDK 17 and JDK 25.
            double u1 = 1.0 - random.nextDouble(); // (0, 1]: log(u1) is finite
            double u2 = random.nextDouble();
            double gaussian = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
            double size = Math.exp(7.6 + 1.0 * gaussian);
            return (int) Math.max(8, Math.min(MAX_SIZE, Math.round(size)));
        }
    };

    /** No workload asks for more than this; a server may reject larger requests. */
    public static final int MAX_SIZE = 1 << 20;

    /** One size, drawn with {@code random}. */
    public abstract int next(RandomGenerator random);

    /** The distribution of that name, in any letter case. */
    public static SizeDistribution parse(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }
}
