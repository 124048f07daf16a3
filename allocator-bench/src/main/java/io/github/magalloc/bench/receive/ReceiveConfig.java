package io.github.magalloc.bench.receive;

import io.github.magalloc.workload.AllocatorKind;

import java.util.Arrays;

/**
 * One run of the receive scenario: the server's buffer allocator and whether it prefers direct buffers, its receive
 * allocator, how the clients send, how many there are, and the seconds of warm-up and of measurement.
 */
public record ReceiveConfig(AllocatorKind allocator, boolean direct, ReceiveSetting setting, ClientMode mode,
                            int clients, double warmupSeconds, double measureSeconds) {
    /** The arguments {@link #parse} takes, for usage lines. */
    public static final String ARGUMENTS =
        "ALLOCATOR heap|direct SETTING paced|back-to-back CLIENTS WARMUP_S MEASURE_S";

    public ReceiveConfig {
        if (clients <= 0 || clients > 10_000) {
            throw new IllegalArgumentException("clients must be 1 to 10000: " + clients);
        }
        if (!(warmupSeconds >= 0) || !(measureSeconds > 0) || warmupSeconds + measureSeconds > 3600) {
            throw new IllegalArgumentException("seconds must be: warm-up >= 0, measurement > 0, together at most "
                + "3600: " + warmupSeconds + ", " + measureSeconds);
        }
    }

    /**
     * {@code ALLOCATOR heap|direct SETTING paced|back-to-back CLIENTS WARMUP_S MEASURE_S}, e.g.
     * {@code magalloc direct fixed-512k paced 64 2 4}; seconds may have decimals.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static ReceiveConfig parse(String... args) {
        if (args.length != 7) {
            throw new IllegalArgumentException("expected 7 arguments, got " + args.length + ": "
                + Arrays.toString(args));
        }
        AllocatorKind allocator;
        try {
            allocator = AllocatorKind.parse(args[0]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown allocator: " + args[0] + " (expected one of "
                + Arrays.toString(AllocatorKind.values()) + ")", e);
        }
        boolean direct;
        switch (args[1]) {
            case "direct": direct = true; break;
            case "heap": direct = false; break;
            default: throw new IllegalArgumentException("expected heap or direct: " + args[1]);
        }
        return new ReceiveConfig(allocator, direct, ReceiveSetting.parse(args[2]), ClientMode.parse(args[3]),
            integer(args[4], "CLIENTS"), seconds(args[5], "WARMUP_S"), seconds(args[6], "MEASURE_S"));
    }

    private static int integer(String s, String what) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " is not a whole number: " + s, e);
        }
    }

    private static double seconds(String s, String what) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " is not a number: " + s, e);
        }
    }
}
