package io.github.magalloc.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/** Message sizes of the two workloads the issue names. The caller owns the (seeded) Random. */
public abstract class SizeDistribution {
    public static final int MAX_SIZE = 1 << 20;

    private final String name;

    private SizeDistribution(String name) {
        this.name = name;
    }

    public abstract int next(Random random);

    public String name() {
        return name;
    }

    public static SizeDistribution byName(String name) {
        switch (name.trim().toUpperCase(Locale.ROOT)) {
            case "SOCKET_PROXY":
                return socketProxy();
            case "API_GATEWAY":
                return apiGateway();
            default:
                throw new IllegalArgumentException("unknown size distribution " + name);
        }
    }

    /** Uniform over min..max inclusive: odd sizes and edges the two workloads rarely produce. */
    public static SizeDistribution uniform(int min, int max) {
        if (min < 0 || max > MAX_SIZE || min > max) {
            throw new IllegalArgumentException(min + ".." + max);
        }
        return new SizeDistribution("UNIFORM_" + min + "_" + max) {
            @Override
            public int next(Random random) {
                return min + random.nextInt(max - min + 1);
            }
        };
    }

    /** Log-normal, mu 7.6 sigma 1.0 (median about 2 KB), clamped to 8 B..1 MiB. */
    public static SizeDistribution apiGateway() {
        return new SizeDistribution("API_GATEWAY") {
            @Override
            public int next(Random random) {
                double size = Math.exp(7.6 + 1.0 * random.nextGaussian());
                return (int) Math.max(8, Math.min(MAX_SIZE, Math.round(size)));
            }
        };
    }

    /** Empirical sizes of a websocket proxy, from the bundled websocket-proxy-sizes.csv (size,frequency). */
    public static SizeDistribution socketProxy() {
        List<long[]> rows = readCsv("/websocket-proxy-sizes.csv");
        int[] sizes = new int[rows.size()];
        long[] cumulative = new long[rows.size()];
        long total = 0;
        for (int i = 0; i < rows.size(); i++) {
            sizes[i] = (int) rows.get(i)[0];
            total += rows.get(i)[1];
            cumulative[i] = total;
        }
        long sum = total;
        return new SizeDistribution("SOCKET_PROXY") {
            @Override
            public int next(Random random) {
                long pick = (long) (random.nextDouble() * sum);
                int i = Arrays.binarySearch(cumulative, pick + 1);
                return sizes[i >= 0 ? i : -i - 1];
            }
        };
    }

    private static List<long[]> readCsv(String resource) {
        InputStream in = SizeDistribution.class.getResourceAsStream(resource);
        if (in == null) {
            throw new IllegalStateException("missing class path resource " + resource);
        }
        List<long[]> rows = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
            String line;
            while ((line = r.readLine()) != null) {
                line = line.trim();
                if (line.isEmpty() || !Character.isDigit(line.charAt(0))) {
                    continue; // header
                }
                String[] cols = line.split(",");
                long size = Long.parseLong(cols[0].trim());
                long freq = Long.parseLong(cols[1].trim());
                if (size < 0 || size > MAX_SIZE || freq < 0) {
                    throw new IllegalStateException("bad row in " + resource + ": " + line);
                }
                if (freq > 0) {
                    rows.add(new long[] {size, freq});
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (rows.isEmpty()) {
            throw new IllegalStateException("no sizes in " + resource);
        }
        return rows;
    }
}
