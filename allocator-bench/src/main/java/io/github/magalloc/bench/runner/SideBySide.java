package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.BenchJvm;
import io.github.magalloc.bench.FootprintProfiler;
import io.github.magalloc.bench.Workers;
import io.github.magalloc.bench.receive.ClientMode;
import io.github.magalloc.bench.receive.ReceiveSetting;
import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.SizeDistribution;
import io.github.magalloc.workload.VirtualThreadRequests;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Runs the allocators side by side and prints one table, the goal checks, the footprint table, the table of
 * memory held after a peak and the table of receive buffers (memory held for the request bytes in flight of an HTTP
 * server with slow clients, per receive setting).
 * Quick mode (default): a few configurations, 1 fork, 1 warmup + 2 measurement iterations of 1 s, a few minutes
 * on 2 cores; indicative only. {@code --full}: every benchmark with every param, both thread kinds, 2 forks and
 * the iterations of the annotations (3 warmup + 5 measurement of 1 s); hours. {@code --report}: the quick
 * selection with 2 forks (CrossThread: at least {@value #CROSS_THREAD_REPORT_FORKS}) and the annotations' iterations
 * (about 14 minutes, about 6.5 more for the after-a-peak table's 12 JVMs of 30 s samples, and about 10 more for
 * the receive table's 27 JVMs): the run docs/benchmarks.md quotes.
 * JMH's own output goes to {@code jmh.log} in the output directory, JSON results to {@code *.json} there,
 * a chart of magalloc's ratios ({@link RatioChart}) to {@code ratios.svg} (with a Receive group of bars: mean used
 * memory, lower is better), and the footprint, after-a-peak and receive rows to {@code footprint.tsv},
 * {@code peak.tsv} and {@code receive.tsv}.
 *
 * <p>Usage: {@code SideBySide [--full] [--out DIR] [--only REGEX] [--forks N] [--threads N] [--jvm-arg ARG]...};
 * {@code --only} matches run names such as {@code AllocPattern-EVENT_LOOP}, {@code Footprint} (the footprint
 * and after-a-peak tables), {@code Limit} (memory under a limit, {@link LimitTable}) or {@code Receive} (the receive
 * table);
 * {@code --threads N} runs every benchmark with N worker threads (N event loops or N plain threads sharing the
 * allocator; for CrossThread N/2 producer-consumer pairs), the scaling run: the same command on a bigger machine;
 * {@code --jvm-arg} adds an argument to every benchmark, footprint, after-a-peak and receive JVM.
 */
public final class SideBySide {
    private static final String[] MAIN3 = {"MAGALLOC", "ADAPTIVE", "POOLED"};
    private static final String[] MAIN2 = {"MAGALLOC", "ADAPTIVE"};
    /**
     * Forks of a cross-thread run in a report, at least: its forks are bimodal on a shared machine (each settles
     * at a fast or a slow rate for seconds), so its goals are judged on the median fork and the worst one
     * ({@link Goals}), which two forks cannot show.
     */
    static final int CROSS_THREAD_REPORT_FORKS = 6;
    /** Size of the peak in the after-a-peak table, MiB: far above what the allocators keep in steady traffic. */
    private static final String PEAK_MIB = "512";
    /** Threads of the peak: event loops and plain threads, each holding a quarter of it. */
    private static final String PEAK_LOOPS = "2";
    private static final String PEAK_PLAIN_THREADS = "2";
    /** Seconds after the peak's release at which used memory is sampled: quick run, and --report or --full. */
    private static final List<String> PEAK_SECONDS_QUICK = List.of("0", "2", "5", "10");
    private static final List<String> PEAK_SECONDS_LONG = List.of("0", "1", "5", "10", "30");
    /**
     * Added to the fork args of an after-a-peak JVM: room for the peak's direct buffers and what the pool keeps
     * besides them (the fork args' -Xmx2g is the room for heap), and the heap touched at start, so that the resident
     * memory column shows native memory only (the fork args make -Xms equal to -Xmx).
     */
    private static final List<String> PEAK_JVM_ARGS = List.of("-XX:MaxDirectMemorySize=2g", "-XX:+AlwaysPreTouch");
    /**
     * The JVM flags an after-a-peak row runs with besides {@link #PEAK_JVM_ARGS}: none, and on JDK 24+ also native
     * access, with which Netty frees direct memory through {@code free()} rather than by closing an arena
     * (docs/tuning.md, "Resident memory").
     */
    private static final List<List<String>> PEAK_FLAGS = Runtime.version().feature() >= 24
        ? List.of(List.of(), List.of("--enable-native-access=ALL-UNNAMED")) : List.of(List.of());
    /** Receive settings of the quick run (paced clients); --report and --full run every {@link ReceiveSetting}. */
    private static final List<ReceiveSetting> RECEIVE_SETTINGS_QUICK = List.of(ReceiveSetting.FIXED_512K,
            ReceiveSetting.NETTY_ADAPTIVE, ReceiveSetting.MAGALLOC, ReceiveSetting.CUT_FIXED_512K);
    /** Settings that --report and --full also run with back-to-back clients. */
    private static final List<ReceiveSetting> RECEIVE_BACK_TO_BACK = List.of(ReceiveSetting.NETTY_ADAPTIVE,
            ReceiveSetting.MAGALLOC);
    /** Warm-up and measured seconds of a receive row: quick run, and --report or --full. */
    private static final List<String> RECEIVE_SECONDS_QUICK = List.of("2", "4");
    private static final List<String> RECEIVE_SECONDS_LONG = List.of("5", "15");
    /** The JMH-like name of the receive rows in the chart: {@link BenchResult#name()} makes it "Receive". */
    private static final String RECEIVE_CHART_BENCHMARK = "io.github.magalloc.bench.Receive.usedMemory";
    /** The first JDK with virtual threads: the benchmark JVMs run on the runner's own JDK. */
    private static final int VIRTUAL_THREADS_JDK = 21;

    /** One JMH invocation: one benchmark class on one kind of worker thread, with explicit params (none = all). */
    record Run(String benchmark, Workers workers, Map<String, String[]> params) {
        String name() {
            return benchmark + "-" + workers;
        }

        /** Forks this run makes; -1 when params come from the annotations. */
        int configurations() {
            return params.isEmpty() ? -1 : params.values().stream().mapToInt(v -> v.length).reduce(1, (a, b) -> a * b);
        }
    }

    private final boolean full;
    private final Path out;
    private final int forks;
    /** Worker threads per benchmark (--threads); 0 keeps each benchmark's own (1, or 2 for the two-thread ones). */
    private final int threads;
    /** Quick selection, but with the annotations' iterations and 2 forks (--report). */
    private final boolean report;
    /** Args of every benchmark fork and footprint JVM. */
    private final List<String> jvmArgs;
    /** The --jvm-arg arguments alone: the limit table's JVMs take no fork args but these. */
    private final List<String> extraJvmArgs;
    private final PrintStream console = System.out;

    private SideBySide(boolean full, boolean report, Path out, int forks, int threads, List<String> extraJvmArgs) {
        this.threads = threads;
        this.report = report;
        this.full = full;
        this.out = out;
        this.forks = forks;
        this.jvmArgs = new ArrayList<>(BenchJvm.ARGS);
        this.jvmArgs.addAll(extraJvmArgs);
        this.extraJvmArgs = List.copyOf(extraJvmArgs);
    }

    public static void main(String[] args) throws Exception {
        boolean full = false;
        boolean report = false;
        Path out = null;
        Pattern only = null;
        int forks = -1;
        int threads = 0;
        List<String> extraJvmArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--full": full = true; break;
                case "--out": out = Path.of(args[++i]); break;
                case "--only": only = Pattern.compile(args[++i]); break;
                case "--forks": forks = Integer.parseInt(args[++i]); break;
                case "--report": report = true; break;
                case "--threads": threads = Integer.parseInt(args[++i]); break;
                case "--jvm-arg": extraJvmArgs.add(args[++i]); break;
                default:
                    System.err.println("usage: SideBySide [--full | --report] [--out DIR] [--only REGEX] [--forks N] "
                            + "[--threads N] [--jvm-arg ARG]...");
                    System.exit(2);
            }
        }
        if (out == null) {
            out = Path.of(full ? "results" : "bench-quick");
        }
        if (threads < 0) {
            System.err.println("--threads must be positive: " + threads);
            System.exit(2);
        }
        SideBySide runner = new SideBySide(full, report, out, forks > 0 ? forks : full || report ? 2 : 1, threads,
                extraJvmArgs);
        List<Run> runs = new ArrayList<>();
        for (Run run : full ? fullRuns() : quickRuns()) {
            if (only == null || only.matcher(run.name()).find()) {
                runs.add(run);
            }
        }
        System.exit(runner.runAll(runs, only) ? 0 : 1);
    }

    static List<Run> quickRuns() {
        return List.of(
                run("AllocPattern", Workers.EVENT_LOOP, "allocator", MAIN3, "distribution",
                        new String[] {"SOCKET_PROXY", "API_GATEWAY"}, "maxLive", new String[] {"1024", "8192", "65536"},
                        "readWrite", new String[] {"false"}, "direct", new String[] {"true"}),
                run("FixedSize", Workers.EVENT_LOOP, "allocator", MAIN3, "size",
                        new String[] {"256", "65536", "1048576"}, "direct", new String[] {"true"}),
                run("CrossThread", Workers.EVENT_LOOP, "allocator", MAIN3, "size", new String[] {"256", "65536"},
                        "direct", new String[] {"true"}),
                run("Growth", Workers.EVENT_LOOP, "allocator", MAIN2, "target", new String[] {"16384"},
                        "direct", new String[] {"true"}),
                run("Floor", Workers.EVENT_LOOP, "size", new String[] {"256"}),
                run("Shrink", Workers.EVENT_LOOP, "allocator", MAIN3, "shrink", new String[] {"true"},
                        "direct", new String[] {"true"}),
                run("Pinning", Workers.EVENT_LOOP, "allocator", MAIN3, "direct", new String[] {"true"}),
                run("AllocPattern", Workers.PLAIN, "allocator", MAIN2, "distribution", new String[] {"SOCKET_PROXY"},
                        "maxLive", new String[] {"1024"}, "readWrite", new String[] {"false"},
                        "direct", new String[] {"true"}),
                run("FixedSize", Workers.PLAIN, "allocator", MAIN2, "size", new String[] {"256", "65536"},
                        "direct", new String[] {"true"}),
                run("CrossThread", Workers.PLAIN, "allocator", MAIN2, "size", new String[] {"256"},
                        "direct", new String[] {"true"}),
                run("Concurrent", Workers.PLAIN, "allocator", MAIN2, "size", new String[] {"SOCKET_PROXY"},
                        "direct", new String[] {"true"}),
                run("AllocPattern", Workers.HARNESS, "allocator", MAIN3, "distribution",
                        new String[] {"SOCKET_PROXY"}, "maxLive", new String[] {"1024"},
                        "readWrite", new String[] {"false"}, "direct", new String[] {"true"}),
                run("FixedSize", Workers.HARNESS, "allocator", MAIN3, "size", new String[] {"256"},
                        "direct", new String[] {"true"}),
                run("VirtualThread", Workers.VIRTUAL, "allocator", MAIN3, "direct", new String[] {"true"}));
    }

    static List<Run> fullRuns() {
        List<Run> runs = new ArrayList<>();
        for (String benchmark : List.of("AllocPattern", "FixedSize", "Floor", "CrossThread", "Concurrent", "Growth",
                "Pinning")) {
            for (Workers workers : Workers.PLATFORM) {
                runs.add(new Run(benchmark, workers, Map.of()));
            }
        }
        for (String benchmark : List.of("AllocPattern", "FixedSize")) {
            runs.add(new Run(benchmark, Workers.HARNESS, Map.of()));
        }
        runs.add(new Run("VirtualThread", Workers.VIRTUAL, Map.of()));
        return runs;
    }

    private static Run run(String benchmark, Workers workers, Object... keyValues) {
        Map<String, String[]> params = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            params.put((String) keyValues[i], (String[]) keyValues[i + 1]);
        }
        return new Run(benchmark, workers, params);
    }

    private boolean runAll(List<Run> runs, Pattern only) throws IOException, InterruptedException, RunnerException {
        Files.createDirectories(out);
        printEnvironment();
        warnIfAnotherJmhRuns();
        boolean complete = true;
        List<BenchResult> results = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            Run run = runs.get(i);
            Path json = out.resolve(run.name() + ".json");
            Files.deleteIfExists(json);
            if (run.workers() == Workers.VIRTUAL && Runtime.version().feature() < VIRTUAL_THREADS_JDK) {
                console.printf(Locale.ROOT, "[%d/%d] %s: skipped: %s%n", i + 1, runs.size(), run.name(),
                        VirtualThreadRequests.unavailableReason());
                continue;
            }
            console.printf(Locale.ROOT, "[%d/%d] %s: %s forks ...%n", i + 1, runs.size(), run.name(),
                    run.configurations() < 0 ? "all params," : String.valueOf(run.configurations() * forksOf(run)));
            long start = System.nanoTime();
            new Runner(options(run, json)).run();
            List<BenchResult> got = Files.exists(json) ? BenchResult.load(json) : List.of();
            results.addAll(got);
            console.printf(Locale.ROOT, "      %d results in %d s%n", got.size(), (System.nanoTime() - start) / 1_000_000_000L);
            if (run.configurations() >= 0 && got.size() != run.configurations()) {
                console.printf("      MISSING RESULTS: expected %d; a benchmark failed, see %s%n",
                        run.configurations(), out.resolve("jmh.log"));
                complete = false;
            }
        }
        console.println();
        new JmhResultTable(results).print(console);
        Path chart = out.resolve("ratios.svg");
        String chartSubtitle = (full ? "full" : report ? "report" : "quick") + " run, " + forks + " fork(s)"
                + (report ? " (CrossThread " + crossThreadReportForks() + ")" : "") + ", "
                + java.time.LocalDate.now(java.time.ZoneOffset.UTC);
        RatioChart.write(results, chartSubtitle, chart);
        console.println("Chart of magalloc's ratio to each Netty allocator: " + chart.toAbsolutePath());
        console.println();
        new Goals(results).print(console);
        if (only == null || only.matcher("Footprint").find()) {
            console.println();
            complete &= footprint();
            console.println();
            complete &= afterPeak();
        }
        if (only == null || only.matcher("Limit").find()) {
            console.println();
            complete &= new LimitTable(console, extraJvmArgs, !full && !report).run(out);
        }
        if (only == null || only.matcher("Receive").find()) {
            console.println();
            List<BenchResult> receiveRows = new ArrayList<>();
            complete &= receive(receiveRows);
            if (!receiveRows.isEmpty()) {
                List<BenchResult> withReceive = new ArrayList<>(results);
                withReceive.addAll(receiveRows);
                RatioChart.write(withReceive, chartSubtitle + "; Receive bars: the other's mean used MiB / "
                        + "magalloc's", chart);
                console.println("Chart with the Receive group: " + chart.toAbsolutePath());
            }
        }
        console.println();
        console.println("JSON results and jmh.log: " + out.toAbsolutePath());
        if (!full && !report) {
            console.println("Quick run (1 fork, 2 x 1 s iterations, shared machine): indicative only; "
                    + "use --full for numbers to quote.");
        }
        return complete;
    }

    /** Forks for {@code run}: the chosen count, raised for cross-thread runs in a report. */
    private int forksOf(Run run) {
        return report && run.benchmark().equals("CrossThread") ? crossThreadReportForks() : forks;
    }

    private int crossThreadReportForks() {
        return Math.max(forks, CROSS_THREAD_REPORT_FORKS);
    }

    private org.openjdk.jmh.runner.options.Options options(Run run, Path json) {
        List<String> forkArgs = new ArrayList<>(jvmArgs);
        forkArgs.addAll(run.workers().jvmArgs);
        ChainedOptionsBuilder builder = new OptionsBuilder()
                .include("\\.bench\\.(floor\\.)?" + run.benchmark() + "Benchmark\\.")
                .param("threads", run.workers().name())
                .jvmArgsAppend(forkArgs.toArray(new String[0]))
                .forks(forksOf(run))
                .addProfiler(GCProfiler.class)
                .addProfiler(FootprintProfiler.class)
                .resultFormat(ResultFormatType.JSON)
                .result(json.toString())
                .output(out.resolve("jmh.log").toString());
        run.params().forEach(builder::param);
        if (threads > 0) {
            builder.threads(threads);
        }
        if (!full && !report) {
            builder.warmupIterations(1).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(2).measurementTime(TimeValue.seconds(1));
        }
        return builder.build();
    }

    /** One JVM per configuration, with the benchmark forks' JVM args: RSS is per process. */
    private boolean footprint() throws IOException, InterruptedException {
        List<String[]> configs = new ArrayList<>();
        if (full) {
            for (AllocatorKind kind : AllocatorKind.values()) {
                for (SizeDistribution distribution : SizeDistribution.values()) {
                    for (String live : List.of("1024", "8192")) {
                        for (Workers workers : Workers.PLATFORM) {
                            configs.add(new String[] {kind.name(), distribution.name(), live, workers.name()});
                        }
                    }
                }
            }
        } else {
            for (String kind : MAIN3) {
                configs.add(new String[] {kind, "SOCKET_PROXY", "8192", "EVENT_LOOP"});
            }
        }
        console.println("Footprint (FootprintReport, one JVM per row): used = allocator metric (heap+direct), "
                + "live = bytes asked for by live buffers, RSS = process VmRSS.");
        TextTable table = new TextTable("allocator", "distribution", "live bufs", "threads", "phase", "live MiB",
                "used MiB", "used/live", "RSS MiB", "trim");
        List<String> tsv = new ArrayList<>();
        boolean ok = true;
        for (String[] config : configs) {
            List<String> lines = new ArrayList<>();
            int exit = javaWithForkArgs(FootprintReport.class.getName(), List.of(config), lines);
            int rows = 0;
            for (String line : lines) {
                if (!line.startsWith(FootprintReport.PREFIX)) {
                    continue;
                }
                tsv.add(line.substring(FootprintReport.PREFIX.length()));
                String[] c = line.substring(FootprintReport.PREFIX.length()).split("\t");
                double live = Double.parseDouble(c[6]);
                double used = Double.parseDouble(c[7]);
                table.add(c[0], c[1], c[2], c[3], c[5], mib(live), mib(used),
                        live == 0 ? "-" : JmhResultTable.fmt(used / live) + "x", mib(Double.parseDouble(c[8])), c[9]);
                rows++;
            }
            if (exit != 0 || rows == 0) {
                ok = false;
                console.println("FootprintReport " + String.join(" ", config) + " FAILED (exit " + exit + "):");
                lines.forEach(l -> console.println("    " + l));
            }
        }
        table.print(console);
        Files.write(out.resolve("footprint.tsv"), tsv);
        return ok;
    }

    /**
     * Memory the allocators hold after a traffic peak, with nobody calling trim: one {@link PeakReport} JVM per row
     * (direct buffers, two event loops). Quick: light traffic after the peak, each loop releasing its own buffers;
     * --report and --full add idle loops and releases from another thread, and sample for longer.
     */
    private boolean afterPeak() throws IOException, InterruptedException {
        boolean quick = !full && !report;
        List<String> traffics = quick ? List.of("LIGHT") : List.of("LIGHT", "IDLE");
        List<String> releasers = quick ? List.of("OWNER") : List.of("OWNER", "OTHER");
        List<String> seconds = quick ? PEAK_SECONDS_QUICK : PEAK_SECONDS_LONG;
        console.println("After a peak (PeakReport, one JVM per row, " + String.join(" ", PEAK_JVM_ARGS) + "): "
                + PEAK_MIB + " MiB of direct buffers on " + PEAK_LOOPS + " event loops and " + PEAK_PLAIN_THREADS
                + " plain threads, released; used = allocator metric (heap+direct), RSS = the process's resident "
                + "memory above its level just before the peak, at each time after the release; no trim.");
        List<String> header = new ArrayList<>(List.of("allocator", "JVM flags", "traffic", "releaser", "peak MiB"));
        for (String s : seconds) {
            header.add("used MiB " + s + " s");
        }
        for (String s : seconds) {
            header.add("RSS MiB " + s + " s");
        }
        TextTable table = new TextTable(header.toArray(new String[0]));
        List<String> tsv = new ArrayList<>();
        boolean ok = true;
        List<PeakRow> rows = new ArrayList<>();
        for (List<String> flags : PEAK_FLAGS) {
            for (String traffic : traffics) {
                for (String releaser : releasers) {
                    for (String kind : MAIN3) {
                        rows.add(new PeakRow(flags, kind, traffic, releaser));
                    }
                }
            }
        }
        for (PeakRow peakRow : rows) {
            List<String> args = new ArrayList<>(List.of(peakRow.allocator(), "direct", peakRow.traffic(),
                peakRow.releaser(), PEAK_MIB, PEAK_LOOPS, PEAK_PLAIN_THREADS));
            args.addAll(seconds);
            List<String> jvmArgs = new ArrayList<>(PEAK_JVM_ARGS);
            jvmArgs.addAll(peakRow.flags());
            List<String> lines = new ArrayList<>();
            int exit = javaWithForkArgs(jvmArgs, PeakReport.class.getName(), args, lines);
            // one PEAK line per sample: allocator, heap|direct, after, releaser, peak, seconds, used, RSS
            List<String> row = new ArrayList<>();
            List<String> rss = new ArrayList<>();
            for (String line : lines) {
                if (!line.startsWith(PeakReport.PREFIX)) {
                    continue;
                }
                String fields = line.substring(PeakReport.PREFIX.length());
                tsv.add(fields + "\t" + peakRow.flagsLabel());
                String[] c = fields.split("\t");
                if (row.isEmpty()) {
                    row.addAll(List.of(c[0], peakRow.flagsLabel(), c[2], c[3], mib(Double.parseDouble(c[4]))));
                }
                row.add(mib(Double.parseDouble(c[6])));
                rss.add(mib(Double.parseDouble(c[7])));
            }
            row.addAll(rss);
            if (exit != 0 || row.size() != header.size()) {
                ok = false;
                console.println("PeakReport " + String.join(" ", jvmArgs) + " " + String.join(" ", args)
                    + " FAILED (exit " + exit + "):");
                lines.forEach(l -> console.println("    " + l));
                continue;
            }
            table.add(row.toArray(new String[0]));
        }
        table.print(console);
        Files.write(out.resolve("peak.tsv"), tsv);
        return ok;
    }

    /** One after-a-peak JVM: its JVM flags besides {@link #PEAK_JVM_ARGS}, and {@link PeakReport}'s arguments. */
    private record PeakRow(List<String> flags, String allocator, String traffic, String releaser) {
        String flagsLabel() {
            return flags.isEmpty() ? "none" : String.join(" ", flags);
        }
    }

    /**
     * Memory held for the request bytes in flight of an HTTP server with slow clients: one {@link ReceiveReport} JVM
     * per row (direct buffers, one worker event loop), for each receive setting and allocator. Quick: paced clients
     * and four settings, 2 s of warm-up and 4 s measured; --report and --full: every setting paced, and back to back
     * for Netty's adaptive receive allocator and magalloc's, 5 s + 15 s. Adds one {@link BenchResult} per row to
     * {@code chartRows} (score: mean used MiB, lower is better), for the chart's Receive group.
     */
    private boolean receive(List<BenchResult> chartRows) throws IOException, InterruptedException {
        boolean quick = !full && !report;
        List<String> seconds = quick ? RECEIVE_SECONDS_QUICK : RECEIVE_SECONDS_LONG;
        List<Map.Entry<ReceiveSetting, ClientMode>> rows = new ArrayList<>();
        for (ReceiveSetting setting : quick ? RECEIVE_SETTINGS_QUICK : List.of(ReceiveSetting.values())) {
            rows.add(Map.entry(setting, ClientMode.PACED));
        }
        if (!quick) {
            for (ReceiveSetting setting : RECEIVE_BACK_TO_BACK) {
                rows.add(Map.entry(setting, ClientMode.BACK_TO_BACK));
            }
        }
        console.println("Receive buffers (ReceiveReport, one JVM per row): a Netty HTTP server on loopback (NIO, one "
                + "worker event loop, direct buffers, HttpObjectAggregator) gets 64 KiB POSTs in 1,460-byte segments, "
                + "paced (" + ClientMode.PACED.defaultClients() + " clients, a segment per ms each) or back to back ("
                + ClientMode.BACK_TO_BACK.defaultClients() + " clients); " + seconds.get(0) + " s warm-up, "
                + seconds.get(1) + " s measured; used = allocator metric (heap+direct) and in flight = request bytes "
                + "read and not yet released, sampled every 5 ms; idle = used once the clients stopped, nothing in "
                + "flight; OOMs = OutOfMemoryErrors the server saw; heap B/req = heap allocated by the server's event "
                + "loop per request.");
        TextTable table = new TextTable("allocator", "setting", "mode", "req/s", "used MiB (mean)",
                "in flight MiB (mean)", "used / in flight", "max used MiB", "idle MiB", "OOMs", "heap B/req");
        List<String> tsv = new ArrayList<>();
        boolean ok = true;
        for (Map.Entry<ReceiveSetting, ClientMode> row : rows) {
            for (String kind : MAIN3) {
                List<String> args = List.of(kind, "direct", row.getKey().label(), row.getValue().label(),
                        String.valueOf(row.getValue().defaultClients()), seconds.get(0), seconds.get(1));
                List<String> lines = new ArrayList<>();
                int exit = javaWithForkArgs(ReceiveReport.class.getName(), args, lines);
                List<String> found = lines.stream().filter(l -> l.startsWith(ReceiveReport.PREFIX))
                        .map(l -> l.substring(ReceiveReport.PREFIX.length())).collect(Collectors.toList());
                if (exit != 0 || found.size() != 1) {
                    ok = false;
                    console.println("ReceiveReport " + String.join(" ", args) + " FAILED (exit " + exit + "):");
                    lines.forEach(l -> console.println("    " + l));
                    continue;
                }
                tsv.add(found.get(0));
                // allocator, heap|direct, setting, mode, clients, warm-up s, measured s, requests, requests/s,
                // mean used B, mean in flight B, used/in flight, max used B, OOMs, heap B/request, ...
                String[] c = found.get(0).split("\t");
                double used = Double.parseDouble(c[9]);
                table.add(c[0], c[2], c[3], JmhResultTable.fmt(Double.parseDouble(c[8])), mib(used),
                        mib(Double.parseDouble(c[10])), JmhResultTable.fmt(Double.parseDouble(c[11])) + "x",
                        mib(Double.parseDouble(c[12])), mib(Double.parseDouble(c[c.length - 1])), c[13],
                        JmhResultTable.fmt(Double.parseDouble(c[14])));
                Map<String, String> params = new LinkedHashMap<>();
                params.put("allocator", kind);
                params.put("threads", Workers.EVENT_LOOP.name());
                params.put("setting", c[2]);
                params.put("mode", c[3]);
                params.put("direct", "true");
                chartRows.add(new BenchResult(RECEIVE_CHART_BENCHMARK, "avgt", 1, params, used / (1 << 20),
                        Double.NaN, "MiB", Map.of(), List.of()));
            }
        }
        table.print(console);
        Files.write(out.resolve("receive.tsv"), tsv);
        return ok;
    }

    /** Runs a main class of this jar in a JVM with the benchmark forks' args; collects its output lines. */
    private int javaWithForkArgs(String mainClass, List<String> args, List<String> lines)
            throws IOException, InterruptedException {
        return javaWithForkArgs(List.of(), mainClass, args, lines);
    }

    /**
     * As {@link #javaWithForkArgs(String, List, List)}, with {@code moreJvmArgs} before the forks' args: the JVM
     * takes the last of repeated options, so a --jvm-arg still overrides them.
     */
    private int javaWithForkArgs(List<String> moreJvmArgs, String mainClass, List<String> args, List<String> lines)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(moreJvmArgs);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                lines.add(line);
            }
        }
        return process.waitFor();
    }

    private static String mib(double bytes) {
        return bytes < 0 ? "-" : JmhResultTable.fmt(bytes / (1 << 20));
    }

    /**
     * JMH refuses to start while another JMH run holds its lock file. On a shared development machine that is
     * common, so say so (the numbers will be disturbed) and go on instead of failing.
     */
    private void warnIfAnotherJmhRuns() throws IOException {
        Path lockFile = Path.of(System.getProperty("java.io.tmpdir"), "jmh.lock");
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = channel.tryLock()) {
            if (lock == null) {
                console.println("WARNING: another JMH run holds " + lockFile + "; running anyway, "
                        + "expect disturbed numbers.");
            }
        } catch (OverlappingFileLockException e) {
            // held by this JVM: nothing else is running
        }
        System.setProperty("jmh.ignoreLock", "true");
    }

    private void printEnvironment() throws IOException, InterruptedException {
        List<String> lines = new ArrayList<>();
        javaWithForkArgs(BenchJvm.class.getName(), List.of("describe"), lines);
        console.println("magalloc side-by-side (" + (full ? "full" : report ? "report" : "quick") + "), in the benchmark JVMs: "
                + String.join(" / ", lines));
        console.println("fork JVM args: " + String.join(" ", jvmArgs) + " (+ "
                + String.join(" ", Workers.EVENT_LOOP.jvmArgs) + " for EVENT_LOOP); profilers: gc, "
                + FootprintProfiler.class.getSimpleName()
                + (threads > 0 ? "; worker threads per benchmark: " + threads : ""));
    }
}
