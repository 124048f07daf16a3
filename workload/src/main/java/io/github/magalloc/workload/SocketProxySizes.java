package io.github.magalloc.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.random.RandomGenerator;

/** The web socket proxy histogram, {@code websocket-proxy-sizes.csv} (size,frequency), as cumulative frequencies. */
final class SocketProxySizes {
    static final SocketProxySizes INSTANCE = load("websocket-proxy-sizes.csv");

    /** The sizes of the csv, ascending; rows with frequency 0 are left out so cumulative rises strictly. */
    final int[] sizes;
    /** cumulative[i] = sum of the frequencies of sizes[0..i]. */
    final long[] cumulative;

    private SocketProxySizes(int[] sizes, long[] cumulative) {
        this.sizes = sizes;
        this.cumulative = cumulative;
    }

    /** The number of samples in the csv. */
    long total() {
        return cumulative[cumulative.length - 1];
    }

    int draw(RandomGenerator random) {
        return sizeAt(random.nextLong(total()));
    }

    /** The size of sample number r, for r in [0, total). */
    int sizeAt(long r) {
        int i = Arrays.binarySearch(cumulative, r);
        // Size i covers [cumulative[i-1], cumulative[i]): an exact hit on cumulative[i] belongs to i+1.
        return sizes[i >= 0 ? i + 1 : -i - 1];
    }

    static SocketProxySizes load(String resource) {
        try (InputStream in = SocketProxySizes.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            String header = reader.readLine();
            if (!"size,frequency".equals(header)) {
                throw new IllegalStateException("unexpected header in " + resource + ": " + header);
            }
            List<long[]> rows = new ArrayList<>();
            for (String line; (line = reader.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                String[] cells = line.split(",");
                long size = Long.parseLong(cells[0].trim());
                long frequency = Long.parseLong(cells[1].trim());
                if (size < 1 || size > SizeDistribution.MAX_SIZE || frequency < 0) {
                    throw new IllegalStateException("bad row in " + resource + ": " + line);
                }
                if (frequency > 0) {
                    rows.add(new long[] {size, frequency});
                }
            }
            if (rows.isEmpty()) {
                throw new IllegalStateException("no sizes in " + resource);
            }
            int[] sizes = new int[rows.size()];
            long[] cumulative = new long[rows.size()];
            long sum = 0;
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = Math.toIntExact(rows.get(i)[0]);
                sum += rows.get(i)[1];
                cumulative[i] = sum;
            }
            return new SocketProxySizes(sizes, cumulative);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
