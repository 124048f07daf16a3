package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.receive.ReceiveConfig;
import io.github.magalloc.bench.receive.ReceiveResult;
import io.github.magalloc.bench.receive.ReceiveScenario;

/**
 * One run of the receive scenario ({@link ReceiveScenario}) in a JVM of its own (the runner starts one per row): a
 * Netty HTTP server on loopback with one worker event loop, the allocator under test and a receive setting, clients
 * in the same JVM that POST 64 KiB bodies in 1,460-byte segments, paced (one segment per millisecond) or back to
 * back. Prints one tab-separated {@code RECEIVE} line, the fields of {@link ReceiveResult#FIELDS}.
 *
 * <p>Usage: {@code ReceiveReport ALLOCATOR heap|direct SETTING paced|back-to-back CLIENTS WARMUP_S MEASURE_S}, e.g.
 * {@code ReceiveReport magalloc direct fixed-512k paced 64 2 4}; settings: fixed-512k, fixed-64k, fixed-64k-es-trim,
 * netty-adaptive, magalloc, magalloc-512k, cut-fixed-512k. Exit code 2 on bad arguments, 1 when the scenario could
 * not run (no request completed and no {@link OutOfMemoryError} to explain it, or an exception), 3 when it overran
 * its time box; 0 otherwise, also when the server counted {@link OutOfMemoryError}s: they are a result.
 */
public final class ReceiveReport {
    static final String PREFIX = "RECEIVE\t";
    private static final String USAGE = "usage: ReceiveReport " + ReceiveConfig.ARGUMENTS;
    /** Seconds a run may take beyond its warm-up and measurement before the JVM is halted. */
    private static final long GRACE_SECONDS = 60;

    private ReceiveReport() {
    }

    public static void main(String[] args) {
        ReceiveConfig config;
        try {
            config = ReceiveConfig.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        long limitMillis = Math.round((config.warmupSeconds() + config.measureSeconds() + GRACE_SECONDS) * 1000);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(limitMillis);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("ReceiveReport: still running after " + limitMillis / 1000 + " s, halting");
            Runtime.getRuntime().halt(3);
        }, "receive-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        int exit;
        try {
            ReceiveResult result = ReceiveScenario.run(config);
            System.out.println(PREFIX + result.tsv());
            if (result.requests() == 0 && result.outOfMemoryErrors() == 0) {
                System.err.println("ReceiveReport: no request completed in the measured window");
                exit = 1;
            } else {
                exit = 0;
            }
        } catch (Throwable t) {
            t.printStackTrace();
            exit = 1;
        }
        System.out.flush();
        System.exit(exit);
    }
}
