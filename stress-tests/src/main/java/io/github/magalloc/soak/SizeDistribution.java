package io.github.magalloc.soak;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Request sizes drawn as in the allocator benchmarks (mission.md section 5). */
interface SizeDistribution {
    int next(ThreadLocalRandom random);

    /** The web socket proxy histogram: 375 sizes, 87,759 samples, mean 2,534 B. */
    SizeDistribution SOCKET_PROXY = Histogram.load("websocket-proxy-sizes.csv");

    /** Log-normal, mu 7.6, sigma 1.0, clamped to 8 B..1 MiB: median about 2 KiB, p99 about 20 KiB. */
    SizeDistribution API_GATEWAY = random -> {
        double size = Math.exp(7.6 + random.nextGaussian());
        return (int) Math.max(8, Math.min(1 << 20, size));
    };

    /** Sizes weighted by how often they were seen; sampled by binary search over cumulative counts. */
    final class Histogram implements SizeDistribution {
        private final int[] sizes;
        private final long[] cumulative;

        private Histogram(int[] sizes, long[] cumulative) {
            this.sizes = sizes;
            this.cumulative = cumulative;
        }

        static Histogram load(String resource) {
            try (InputStream in = SizeDistribution.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing resource " + resource);
                }
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
                List<long[]> rows = new ArrayList<>();
                String line = reader.readLine(); // header: size,frequency
                while ((line = reader.readLine()) != null) {
                    if (!line.isBlank()) {
                        String[] cells = line.split(",");
                        rows.add(new long[] {Long.parseLong(cells[0].trim()), Long.parseLong(cells[1].trim())});
                    }
                }
                int[] sizes = new int[rows.size()];
                long[] cumulative = new long[rows.size()];
                long total = 0;
                for (int i = 0; i < sizes.length; i++) {
                    sizes[i] = (int) rows.get(i)[0];
                    total += rows.get(i)[1];
                    cumulative[i] = total;
                }
                return new Histogram(sizes, cumulative);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public int next(ThreadLocalRandom random) {
            long pick = random.nextLong(cumulative[cumulative.length - 1]);
            int i = Arrays.binarySearch(cumulative, pick + 1);
            return Math.max(1, sizes[i < 0 ? -i - 1 : i]);
        }
    }
}
