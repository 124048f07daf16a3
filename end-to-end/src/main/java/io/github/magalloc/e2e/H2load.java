package io.github.magalloc.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Drives a server with h2load (nghttp2's benchmarking client, Debian package {@code nghttp2-client}) instead of the
 * built-in generator. Two h2load processes run at once, half of the connections each, since one h2load sends one
 * method: GET /gen over a list of {@value #URI_COUNT} URIs {@code /gen?size=N&seed=S} whose sizes come from the load's
 * size distributions, and POST /echo with one body of {@code echoSize} bytes. h2load checks status codes only, not
 * bodies: the requests it finished with a 2xx status stand where the built-in generator's verified count does, every
 * other finished request is a failure, and latency comes from its per-request log ({@code --log-file}).
 */
final class H2load {
    static final int URI_COUNT = 1000;
    /** How long a run by request count is awaited: only a hang reaches it. */
    static final long REQUESTS_HANG_SECONDS = 600;
    /** h2load prints the run's duration in s, ms or us, whichever unit keeps it at 1 or more (its format_duration). */
    private static final Pattern FINISHED = Pattern.compile("finished in ([0-9.]+)(s|ms|us),");
    private static final Pattern REQUESTS = Pattern.compile("requests: (\\d+) total, (\\d+) started, (\\d+) done");
    private static final Pattern SUCCEEDED = Pattern.compile("(\\d+) done, (\\d+) succeeded");
    private static final Pattern STATUS = Pattern.compile("status codes: (\\d+) 2xx, (\\d+) 3xx");

    /**
     * What one h2load process reports: its measured time, the requests it finished and those of them answered 2xx.
     * h2load counts a finished request with a 2xx or 3xx status as succeeded; the server never redirects, so a 3xx is
     * a failure here. (Its "2xx" count alone will not do: it includes responses whose streams were still open when
     * the time ran out, which "done" does not.)
     */
    record Summary(double seconds, long done, long ok) {
    }

    private final LoadConfig load;
    private final int echoSize;

    /** {@code load} gives host, connections, streams per connection ({@code pipeline}), sizes, seed and protocol. */
    H2load(LoadConfig load, int echoSize) {
        if (load.connections() < 2) {
            throw new IllegalArgumentException("h2load needs at least 2 connections, one per process");
        }
        this.load = load;
        this.echoSize = echoSize;
    }

    /** Null if h2load runs here, else how to get it. */
    static String unavailability() {
        try {
            Process p = new ProcessBuilder("h2load", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor() == 0) {
                return null;
            }
        } catch (IOException e) {
            // not on the PATH
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "h2load not found: install it with 'sudo apt-get install -y nghttp2-client' (Debian, Ubuntu)";
    }

    /** Both processes against {@code port} for {@code duration}; their counts summed, their latencies merged. */
    LoadResult run(int port, Duration duration) throws IOException, InterruptedException {
        return run(port, List.of("-D", Long.toString(duration.toSeconds())), duration.toSeconds() + 60);
    }

    /**
     * Both processes against {@code port} until each has made {@code requests} requests, however long that takes
     * (a bound of {@link #REQUESTS_HANG_SECONDS} only a hang reaches); their counts summed, their latencies merged.
     */
    LoadResult runRequests(int port, long requests) throws IOException, InterruptedException {
        return run(port, List.of("-n", Long.toString(requests)), REQUESTS_HANG_SECONDS);
    }

    /** Both processes with {@code budget} (h2load's duration or request count), each awaited {@code waitSeconds}. */
    private LoadResult run(int port, List<String> budget, long waitSeconds) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("e2e-h2load");
        try {
            String base = (load.tls().enabled() ? "https://" : "http://") + load.host() + ":" + port;
            Path uris = dir.resolve("uris.txt");
            Files.write(uris, genUris(base));
            Path body = dir.resolve("echo.bin");
            writeBody(body);
            int half = load.connections() / 2;
            List<Process> processes = new ArrayList<>();
            Summary genSummary;
            Summary echoSummary;
            try {
                processes.add(start(dir, "gen", budget, half, List.of("-i", uris.toString())));
                processes.add(start(dir, "echo", budget, load.connections() - half,
                        List.of("-d", body.toString(), base + "/echo")));
                genSummary = finish(processes.get(0), dir, "gen", waitSeconds);
                echoSummary = finish(processes.get(1), dir, "echo", waitSeconds);
            } finally {
                processes.forEach(Process::destroyForcibly); // no h2load outlives a failed run
            }

            Histogram latency = LoadGenerator.newHistogram();
            readLog(dir.resolve("gen.log"), latency);
            readLog(dir.resolve("echo.log"), latency);
            long ok = genSummary.ok() + echoSummary.ok();
            long failed = genSummary.done() - genSummary.ok() + echoSummary.done() - echoSummary.ok();
            List<String> samples = new ArrayList<>();
            if (failed > 0) {
                samples.add("gen: " + (genSummary.done() - genSummary.ok()) + " of " + genSummary.done()
                        + " not 2xx; echo: " + (echoSummary.done() - echoSummary.ok()) + " of "
                        + echoSummary.done() + " not 2xx");
            }
            double seconds = Math.max(genSummary.seconds(), echoSummary.seconds());
            return new LoadResult(ok, failed, samples, latency, (long) (seconds * 1e9));
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    private List<String> genUris(String base) {
        Random random = new Random(load.seed());
        List<String> lines = new ArrayList<>(URI_COUNT);
        for (int i = 0; i < URI_COUNT; i++) {
            int size = load.sizes().get(random.nextInt(load.sizes().size())).next(random);
            lines.add(base + "/gen?size=" + size + "&seed=" + random.nextLong());
        }
        return lines;
    }

    private void writeBody(Path body) throws IOException {
        ByteBuf buf = Unpooled.buffer(echoSize);
        try (OutputStream out = Files.newOutputStream(body)) {
            Payload.fill(buf, load.seed(), echoSize);
            buf.readBytes(out, echoSize);
        } finally {
            buf.release();
        }
    }

    private Process start(Path dir, String name, List<String> budget, int connections, List<String> target)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of("h2load"));
        cmd.addAll(budget);
        cmd.addAll(List.of("-c", Integer.toString(connections), "-m", Integer.toString(load.pipeline()), "-t", "1",
                "--log-file", dir.resolve(name + ".log").toString()));
        if (load.protocol() == Protocol.HTTP1) {
            cmd.add("--h1");
        } else if (load.tls().enabled()) {
            cmd.add("--npn-list=" + Protocol.HTTP2.alpnId()); // h2 by ALPN; h2c with prior knowledge otherwise
        }
        cmd.addAll(target);
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".out").toFile()).start();
    }

    private static Summary finish(Process p, Path dir, String name, long waitSeconds)
            throws IOException, InterruptedException {
        if (!p.waitFor(waitSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("h2load " + name + " did not finish");
        }
        String output = Files.readString(dir.resolve(name + ".out"), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException("h2load " + name + " exited " + p.exitValue() + ":\n" + output);
        }
        return parse(output);
    }

    /** The summary lines of h2load's output. */
    static Summary parse(String output) {
        long succeeded = Long.parseLong(find(SUCCEEDED, output, 2));
        long redirects = Long.parseLong(find(STATUS, output, 2));
        return new Summary(finishedSeconds(output), Long.parseLong(find(REQUESTS, output, 3)), succeeded - redirects);
    }

    private static double finishedSeconds(String output) {
        Matcher finished = match(FINISHED, output);
        double value = Double.parseDouble(finished.group(1));
        switch (finished.group(2)) {
            case "ms":
                return value / 1e3;
            case "us":
                return value / 1e6;
            default:
                return value;
        }
    }

    private static String find(Pattern p, String output, int group) {
        return match(p, output).group(group);
    }

    private static Matcher match(Pattern p, String output) {
        Matcher m = p.matcher(output);
        if (!m.find()) {
            throw new IllegalArgumentException("no '" + p.pattern() + "' in h2load output:\n" + output);
        }
        return m;
    }

    /** Adds the latency of every 2xx request in an h2load log (start µs, status, µs to the end of the response). */
    static void readLog(Path log, Histogram into) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(log, StandardCharsets.US_ASCII)) {
            for (String line; (line = r.readLine()) != null; ) {
                String[] f = line.split("\t");
                if (f.length >= 3 && f[1].startsWith("2")) {
                    long nanos = Long.parseLong(f[2]) * 1000;
                    into.recordValue(Math.min(nanos, into.getHighestTrackableValue()));
                }
            }
        }
    }
}
