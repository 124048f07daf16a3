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
 * Runs the end-to-end comparison: for each allocator, a fresh server JVM ({@link E2eServer}) driven by this JVM's load
 * generator ({@link LoadGenerator}) or by h2load ({@link H2load}). Warm-up, then a measured window bracketed by the
 * server's /stats, then the server is stopped. Prints a markdown table with ratios to Netty adaptive and pooled, and
 * with --json writes the medians as JSON ({@link ResultJson}). Exits 1 if any request failed, any allocator got no
 * answer, or the server saw a buffer not from its allocator.
 *
 * <p>Options: --allocators magalloc,adaptive,pooled,unpooled --mode direct|proxy --protocol http1|http2
 * --tls none|jdk|openssl --client builtin|h2load --transport nio|epoll --client-warmup-seconds 10
 * --warmup-seconds 5 --seconds 20 --rounds 1 --long (20 s warm-up, 60 s measured, 3 rounds) --connections 8
 * --pipeline 4 --server-threads 1 --server-heap 512m --server-java-opts "OPTIONS" --max-requests N --seed 42
 * --h2load-echo-size 16384 --out FILE --json FILE.
 *
 * <p>With several rounds the allocator order rotates each round and the table shows per-column medians, which damps
 * the effect of other load on a shared machine.
 */
public final class EndToEndRunner {
    private EndToEndRunner() {
    }

    /** What drives a server for a while: the built-in generator or h2load. */
    private interface Client {
        LoadResult run(int port, Duration duration) throws Exception;

        /** What the client counts as answered: "verified" byte for byte, or "2xx" (h2load checks status only). */
        String countLabel();
    }

    /**
     * How to start a server JVM: everything but the allocator.
     *
     * @param javaOptions further JVM options, such as a JFR recording to profile the server
     */
    private record ServerSetup(String mode, Transport transport, int threads, String heap, Protocol protocol,
                               Tls tls, List<String> javaOptions) {
    }

    public static void main(String[] args) throws Exception {
        Args a = new Args(args);
        boolean longRun = a.flag("long");
        List<AllocatorKind> kinds = new ArrayList<>();
        for (String k : a.get("allocators", "magalloc,adaptive,pooled,unpooled").split(",")) {
            kinds.add(AllocatorKind.parse(k));
        }
        Transport transport = Transport.resolve(a.get("transport", "nio"));
        ServerSetup server = new ServerSetup(a.get("mode", "direct").toLowerCase(Locale.ROOT), transport,
                a.getInt("server-threads", 1), a.get("server-heap", "512m"), Protocol.parse(a.get("protocol", "http1")),
                Tls.parse(a.get("tls", "none")), splitOptions(a.get("server-java-opts", "")));
        String clientName = a.get("client", "builtin").toLowerCase(Locale.ROOT);
        int warmup = a.getInt("warmup-seconds", longRun ? 20 : 5);
        int seconds = a.getInt("seconds", longRun ? 60 : 20);
        int rounds = a.getInt("rounds", longRun ? 3 : 1);
        int clientWarmup = a.getInt("client-warmup-seconds", 10);
        int echoSize = a.getInt("h2load-echo-size", 16384);
        String out = a.get("out", "");
        String json = a.get("json", "");
        LoadConfig load = new LoadConfig("127.0.0.1", 0, a.getInt("connections", 8), a.getInt("pipeline", 4),
                Long.parseLong(a.get("max-requests", "50000000")), Duration.ofSeconds(seconds),
                Long.parseLong(a.get("seed", "42")),
                List.of(SizeDistribution.SOCKET_PROXY::next, SizeDistribution.API_GATEWAY::next), 0.5, transport,
                server.protocol(), server.tls());
        a.rejectUnknown();

        String unavailable = server.tls().unavailability();
        if (unavailable == null && clientName.equals("h2load")) {
            unavailable = H2load.unavailability();
        }
        if (unavailable != null) {
            System.err.println(unavailable);
            System.exit(2);
        }
        Client client = client(clientName, load, echoSize);

        String setup = String.format(Locale.ROOT,
                "%s, mode %s, %s, TLS %s, client %s, transport %s, %d connections x %d %s, warm-up %d s, "
                        + "measured %d s, %d round(s), server: %d event-loop thread(s) per group, -Xmx%s "
                        + "-XX:+UseG1GC, Java %s, %d CPUs",
                Instant.now(), server.mode(), server.protocol().label(), server.tls().label(), clientName,
                transport.name().toLowerCase(Locale.ROOT), load.connections(), load.pipeline(),
                server.protocol() == Protocol.HTTP2 ? "streams" : "pipelined", warmup, seconds, rounds,
                server.threads(), server.heap(), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        if (clientName.equals("h2load")) {
            setup += ", h2load: GET /gen over " + H2load.URI_COUNT + " URIs and POST /echo of " + echoSize + " B";
        }
        System.out.println("# " + setup);
        if (clientName.equals("builtin")) {
            warmClient(kinds.get(0), server, clientWarmup, client);
        }
        Map<AllocatorKind, List<RunRow>> byKind = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < kinds.size(); i++) {
                AllocatorKind kind = kinds.get((i + round) % kinds.size());
                byKind.computeIfAbsent(kind, k -> new ArrayList<>())
                        .add(runOne(kind, server, Duration.ofSeconds(warmup), Duration.ofSeconds(seconds), client));
            }
        }
        List<RunRow> rows = new ArrayList<>();
        for (AllocatorKind kind : kinds) {
            rows.add(RunRow.median(byKind.get(kind)));
        }
        String table = EndToEndResultTable.render(rows, client.countLabel());
        System.out.println();
        System.out.println(table);
        if (!out.isEmpty()) {
            Files.writeString(Path.of(out), "Setup: " + setup + "\n\n" + table, StandardCharsets.UTF_8);
        }
        if (!json.isEmpty()) {
            Files.writeString(Path.of(json), ResultJson.render(rows), StandardCharsets.UTF_8);
        }
        boolean failed = rows.stream().anyMatch(r -> r.failures() > 0 || r.verified() == 0);
        System.exit(failed ? 1 : 0);
    }

    private static Client client(String name, LoadConfig load, int echoSize) {
        if (name.equals("h2load")) {
            H2load h2load = new H2load(load, echoSize);
            return new Client() {
                @Override
                public LoadResult run(int port, Duration duration) throws Exception {
                    return h2load.run(port, duration);
                }

                @Override
                public String countLabel() {
                    return "2xx";
                }
            };
        }
        if (name.equals("builtin")) {
            return new Client() {
                @Override
                public LoadResult run(int port, Duration duration) throws Exception {
                    return LoadGenerator.run(load.withPort(port).withBudget(load.maxRequests(), duration));
                }

                @Override
                public String countLabel() {
                    return "verified";
                }
            };
        }
        throw new IllegalArgumentException("--client builtin|h2load, not " + name);
    }

    /**
     * This JVM's load generator gets faster as its JIT warms up, which would favour whichever allocator runs last:
     * warm it first against a throwaway server, discarded.
     */
    private static void warmClient(AllocatorKind kind, ServerSetup setup, int seconds, Client client)
            throws Exception {
        if (seconds <= 0) {
            return;
        }
        Process server = startServer(kind, setup);
        try {
            LoadResult warm = client.run(intField(awaitReady(server), "port"), Duration.ofSeconds(seconds));
            System.out.println("[client warm-up, discarded] " + warm.describe(client.countLabel()));
        } finally {
            stopServer(server);
        }
    }

    private static Process startServer(AllocatorKind kind, ServerSetup setup) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + setup.heap(), "-XX:+UseG1GC"));
        command.addAll(setup.javaOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), E2eServer.class.getName(),
                "--allocator", kind.label(), "--transport", setup.transport().name(), "--threads",
                Integer.toString(setup.threads()), "--mode", setup.mode(), "--protocol", setup.protocol().label(),
                "--tls", setup.tls().label()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }

    private static List<String> splitOptions(String options) {
        return options.isBlank() ? List.of() : List.of(options.trim().split("\\s+"));
    }

    private static void stopServer(Process server) throws IOException, InterruptedException {
        server.getOutputStream().close(); // the server exits when its stdin closes
        if (!server.waitFor(20, TimeUnit.SECONDS)) {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static RunRow runOne(AllocatorKind kind, ServerSetup setup, Duration warmup, Duration measuredTime,
                                 Client client) throws Exception {
        Process server = startServer(kind, setup);
        try {
            String ready = awaitReady(server);
            System.out.println("[" + kind.label() + "] server " + ready);
            int port = intField(ready, "port");
            int admin = intField(ready, "admin");

            if (!warmup.isZero()) {
                LoadResult warm = client.run(port, warmup);
                System.out.println("[" + kind.label() + "] warm-up: " + warm.describe(client.countLabel()));
                if (warm.failures() > 0) {
                    throw new IllegalStateException(kind.label() + ": warm-up failed: " + warm);
                }
            }
            ServerStats before = awaitIdle(admin);
            LoadResult measured = client.run(port, measuredTime);
            ServerStats after = awaitIdle(admin);
            System.out.println("[" + kind.label() + "] measured: " + measured.describe(client.countLabel())
                    + "; server buffers checked " + after.buffersChecked() + ", not from the allocator "
                    + after.buffersForeign());
            if (after.buffersForeign() > 0) {
                throw new IllegalStateException(kind.label() + ": " + after.buffersForeign()
                        + " buffers on the server's channels did not come from its allocator");
            }
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
