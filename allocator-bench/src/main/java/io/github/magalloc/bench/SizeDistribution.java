package io.github.magalloc.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Buffer size distributions. Benchmarks never sample in the measured op: they read a precomputed table of
 * {@link #TABLE_SIZE} sizes drawn once with a fixed seed, so every allocator sees the same sequence.
 */
public enum SizeDistribution {
    /** Sizes and frequencies observed in a web socket proxy (87,759 samples, mean 2,534 B), from the csv. */
    SOCKET_PROXY {
        @Override
        int draw(SplittableRandom random) {
            return SocketProxyTable.INSTANCE.draw(random);
        }
    },
    /** Log-normal, mu 7.6, sigma 1.0 (median about 2 KiB), clamped to 8 B..1 MiB. */
    API_GATEWAY {
        @Override
        int draw(SplittableRandom random) {
            // Box-Muller by hand rather than nextGaussian(): the same seed gives the same sizes on every JDK.
            double u1 = 1.0 - random.nextDouble(); // (0, 1]: log(u1) is finite
            double u2 = random.nextDouble();
            double gaussian = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
            double size = Math.exp(7.6 + 1.0 * gaussian);
            return (int) Math.max(8, Math.min(1 << 20, Math.round(size)));
        }
    };

    /**
     * About 64K entries, and prime: a benchmark walking this table next to a slot order whose length is a power
     * of two never runs in step with it, so a slot does not get the same size back every round.
     */
    public static final int TABLE_SIZE = 65_521;
    public static final long SEED = 0x5EED_CAFEL;

    abstract int draw(SplittableRandom random);

    /**
     * A size table for a benchmark param: a distribution name, or a decimal number for a fixed size.
     * Length is {@link #TABLE_SIZE}; callers walk it with a wrapping cursor.
     */
    public static int[] table(String spec) {
        int[] sizes = new int[TABLE_SIZE];
        if (!spec.isEmpty() && Character.isDigit(spec.charAt(0))) {
            Arrays.fill(sizes, Integer.parseInt(spec));
            return sizes;
        }
        SizeDistribution distribution = valueOf(spec);
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = distribution.draw(random);
        }
        return sizes;
    }

    /** The csv as a cumulative frequency table. */
    static final class SocketProxyTable {
        static final SocketProxyTable INSTANCE = load("/websocket-proxy-sizes.csv");

        final int[] sizes;
        /** cumulative[i] = sum of the frequencies of sizes[0..i]. */
        final long[] cumulative;

        private SocketProxyTable(int[] sizes, long[] cumulative) {
            this.sizes = sizes;
            this.cumulative = cumulative;
        }

        long total() {
            return cumulative[cumulative.length - 1];
        }

        int draw(SplittableRandom random) {
            return sizeAt(random.nextLong(total()));
        }

        /** The size of sample number r, for r in [0, total). */
        int sizeAt(long r) {
            int i = Arrays.binarySearch(cumulative, r);
            // Size i covers [cumulative[i-1], cumulative[i]): an exact hit on cumulative[i] belongs to i+1.
            return sizes[i >= 0 ? i + 1 : -i - 1];
        }

        static SocketProxyTable load(String resource) {
            try (InputStream in = SizeDistribution.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing resource " + resource);
                }
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
                List<long[]> rows = new ArrayList<>();
                String header = reader.readLine();
                if (!"size,frequency".equals(header)) {
                    throw new IllegalStateException("unexpected header in " + resource + ": " + header);
                }
                for (String line; (line = reader.readLine()) != null; ) {
                    if (line.isBlank()) {
                        continue;
                    }
                    String[] cells = line.split(",");
                    rows.add(new long[] {Long.parseLong(cells[0].trim()), Long.parseLong(cells[1].trim())});
                }
                int[] sizes = new int[rows.size()];
                long[] cumulative = new long[rows.size()];
                long sum = 0;
                for (int i = 0; i < sizes.length; i++) {
                    sizes[i] = Math.toIntExact(rows.get(i)[0]);
                    sum += rows.get(i)[1];
                    cumulative[i] = sum;
                }
                return new SocketProxyTable(sizes, cumulative);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
