package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.BenchJvm;
import io.github.magalloc.bench.FootprintProfiler;
import io.github.magalloc.bench.Workers;
import io.github.magalloc.workload.VirtualThreadRequests;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

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
    /** magalloc beside Netty's adaptive and pooled allocators; also the allocators of the memory tables' rows. */
    static final String[] MAIN3 = {"MAGALLOC", "ADAPTIVE", "POOLED"};
    private static final String[] MAIN2 = {"MAGALLOC", "ADAPTIVE"};
    /**
     * Forks of a cross-thread run in a report, at least: its forks are bimodal on a shared machine (each settles
     * at a fast or a slow rate for seconds), so its goals are judged on the median fork and the worst one
     * ({@link Goals}), which two forks cannot show.
     */
    static final int CROSS_THREAD_REPORT_FORKS = 6;
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
    /** Runs the footprint, after-a-peak and receive rows, and the description of the benchmark JVMs. */
    private final ChildJvm jvm;
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
        this.jvm = new ChildJvm(jvmArgs);
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
                        "readWrite", new String[] {"false", "true"}, "direct", new String[] {"true"}),
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
                        new String[] {"SOCKET_PROXY", "API_GATEWAY"}, "maxLive", new String[] {"1024", "8192"},
                        "readWrite", new String[] {"false", "true"}, "direct", new String[] {"true"}),
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
            complete &= new FootprintTable(console, jvm, full).run(out);
            console.println();
            complete &= new PeakTable(console, jvm, !full && !report).run(out);
        }
        if (only == null || only.matcher("Limit").find()) {
            console.println();
            complete &= new LimitTable(console, extraJvmArgs, !full && !report).run(out);
        }
        if (only == null || only.matcher("Receive").find()) {
            console.println();
            List<BenchResult> receiveRows = new ArrayList<>();
            complete &= new ReceiveTable(console, jvm, !full && !report).run(out, receiveRows);
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
        jvm.run(BenchJvm.class.getName(), List.of("describe"), lines);
        console.println("magalloc side-by-side (" + (full ? "full" : report ? "report" : "quick") + "), in the benchmark JVMs: "
                + String.join(" / ", lines));
        console.println("fork JVM args: " + String.join(" ", jvmArgs) + " (+ "
                + String.join(" ", Workers.EVENT_LOOP.jvmArgs) + " for EVENT_LOOP); profilers: gc, "
                + FootprintProfiler.class.getSimpleName()
                + (threads > 0 ? "; worker threads per benchmark: " + threads : ""));
    }
}
