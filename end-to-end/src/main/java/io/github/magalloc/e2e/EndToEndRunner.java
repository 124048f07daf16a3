package io.github.magalloc.e2e;

import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.SizeDistribution;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs the end-to-end comparison: for each allocator, a fresh server JVM ({@link E2eServer}) and this JVM as the load
 * generator. Warm-up, then a measured window bracketed by the server's /stats, then the server is stopped. Prints a
 * markdown table with ratios to Netty adaptive and pooled. Exits 1 if any response failed verification.
 *
 * <p>Options: --allocators magalloc,adaptive,pooled,unpooled --mode direct|proxy --transport nio|epoll
 * --client-warmup-seconds 10 --warmup-seconds 5 --seconds 20 --rounds 1 --long (20 s warm-up, 60 s measured, 3 rounds) --connections 8
 * --pipeline 4 --server-threads 1 --server-heap 512m --max-requests N --seed 42 --out FILE.
 *
 * <p>With several rounds the allocator order rotates each round and the table shows per-column medians, which damps
 * the effect of other load on a shared machine.
 */
public final class EndToEndRunner {
    private EndToEndRunner() {
    }

    public static void main(String[] args) throws Exception {
        Args a = new Args(args);
        boolean longRun = a.flag("long");
        List<AllocatorKind> kinds = new ArrayList<>();
        for (String k : a.get("allocators", "magalloc,adaptive,pooled,unpooled").split(",")) {
            kinds.add(AllocatorKind.parse(k));
        }
        String mode = a.get("mode", "direct").toLowerCase(Locale.ROOT);
        Transport transport = Transport.resolve(a.get("transport", "nio"));
        int warmup = a.getInt("warmup-seconds", longRun ? 20 : 5);
        int seconds = a.getInt("seconds", longRun ? 60 : 20);
        int rounds = a.getInt("rounds", longRun ? 3 : 1);
        int clientWarmup = a.getInt("client-warmup-seconds", 10);
        int serverThreads = a.getInt("server-threads", 1);
        String heap = a.get("server-heap", "512m");
        String out = a.get("out", "");
        LoadConfig load = new LoadConfig("127.0.0.1", 0, a.getInt("connections", 8), a.getInt("pipeline", 4),
                Long.parseLong(a.get("max-requests", "50000000")), Duration.ofSeconds(seconds),
                Long.parseLong(a.get("seed", "42")),
                List.of(SizeDistribution.SOCKET_PROXY::next, SizeDistribution.API_GATEWAY::next), 0.5, transport);
        a.rejectUnknown();

        String setup = String.format(Locale.ROOT,
                "%s, mode %s, transport %s, %d connections x pipeline %d, warm-up %d s, measured %d s, %d round(s), "
                        + "server: %d event-loop thread(s) per group, -Xmx%s -XX:+UseG1GC, Java %s, %d CPUs",
                Instant.now(), mode, transport.name().toLowerCase(Locale.ROOT), load.connections(), load.pipeline(),
                warmup, seconds, rounds, serverThreads, heap, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        System.out.println("# " + setup);
        warmClient(kinds.get(0), mode, transport, serverThreads, heap, clientWarmup, load);
        Map<AllocatorKind, List<RunRow>> byKind = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < kinds.size(); i++) {
                AllocatorKind kind = kinds.get((i + round) % kinds.size());
                byKind.computeIfAbsent(kind, k -> new ArrayList<>())
                        .add(runOne(kind, mode, transport, serverThreads, heap, warmup, load));
            }
        }
        List<RunRow> rows = new ArrayList<>();
        for (AllocatorKind kind : kinds) {
            rows.add(RunRow.median(byKind.get(kind)));
        }
        String table = EndToEndResultTable.render(rows);
        System.out.println();
        System.out.println(table);
        if (!out.isEmpty()) {
            Files.writeString(Path.of(out), "Setup: " + setup + "\n\n" + table, StandardCharsets.UTF_8);
        }
        boolean failed = rows.stream().anyMatch(r -> r.failures() > 0 || r.verified() == 0);
        System.exit(failed ? 1 : 0);
    }

    /**
     * This JVM's load generator gets faster as its JIT warms up, which would favour whichever allocator runs last:
     * warm it first against a throwaway server, discarded.
     */
    private static void warmClient(AllocatorKind kind, String mode, Transport transport, int serverThreads,
                                   String heap, int seconds, LoadConfig load) throws Exception {
        if (seconds <= 0) {
            return;
        }
        Process server = startServer(kind, mode, transport, serverThreads, heap);
        try {
            LoadConfig cfg = load.withPort(intField(awaitReady(server), "port"));
            LoadResult warm = LoadGenerator.run(cfg.withBudget(Long.MAX_VALUE, Duration.ofSeconds(seconds)));
            System.out.println("[client warm-up, discarded] " + warm);
        } finally {
            stopServer(server);
        }
    }

    private static Process startServer(AllocatorKind kind, String mode, Transport transport, int serverThreads,
                                       String heap) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx" + heap, "-XX:+UseG1GC",
                "-cp", System.getProperty("java.class.path"), E2eServer.class.getName(),
                "--allocator", kind.label(), "--transport", transport.name(), "--threads",
                Integer.toString(serverThreads), "--mode", mode);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }

    private static void stopServer(Process server) throws IOException, InterruptedException {
        server.getOutputStream().close(); // the server exits when its stdin closes
        if (!server.waitFor(20, TimeUnit.SECONDS)) {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static RunRow runOne(AllocatorKind kind, String mode, Transport transport, int serverThreads,
                                 String heap, int warmup, LoadConfig load) throws Exception {
        Process server = startServer(kind, mode, transport, serverThreads, heap);
        try {
            String ready = awaitReady(server);
            System.out.println("[" + kind.label() + "] server " + ready);
            LoadConfig cfg = load.withPort(intField(ready, "port"));
            int admin = intField(ready, "admin");

            LoadResult warm = LoadGenerator.run(cfg.withBudget(Long.MAX_VALUE, Duration.ofSeconds(warmup)));
            System.out.println("[" + kind.label() + "] warm-up: " + warm);
            if (warm.failures() > 0) {
                throw new IllegalStateException(kind.label() + ": warm-up failed verification: " + warm);
            }
            ServerStats before = awaitIdle(admin);
            LoadResult measured = LoadGenerator.run(cfg);
            ServerStats after = awaitIdle(admin);
            System.out.println("[" + kind.label() + "] measured: " + measured);
            return RunRow.of(kind, measured, before, after);
        } finally {
            stopServer(server);
        }
    }

    /** Reads the server's stdout up to its READY line; gives up after 60 s. */
    private static String awaitReady(Process server) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(60_000);
                server.destroyForcibly();
            } catch (InterruptedException ignored) {
                // ready in time
            }
        });
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("READY ")) {
                    Thread drain = new Thread(() -> r.lines().forEach(l -> System.out.println("server: " + l)));
                    drain.setDaemon(true);
                    drain.start();
                    return line;
                }
                System.out.println("server: " + line);
            }
            throw new IllegalStateException("server exited before READY");
        } finally {
            watchdog.interrupt();
        }
    }

    private static int intField(String line, String key) {
        for (String part : line.split(" ")) {
            if (part.startsWith(key + "=")) {
                return Integer.parseInt(part.substring(key.length() + 1));
            }
        }
        throw new IllegalArgumentException("no " + key + " in " + line);
    }

    /** Server stats once only the stats connection itself is open (load connections closed), at most 10 s later. */
    private static ServerStats awaitIdle(int adminPort) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/stats"))
                .timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200) {
                throw new IOException("/stats answered " + resp.statusCode());
            }
            ServerStats s = ServerStats.parse(resp.body());
            if (s.openConnections() <= 1 || System.nanoTime() > deadline) {
                return s;
            }
            Thread.sleep(100);
        }
    }
}
