package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.BenchJvm;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The table of memory under a limit: one {@link LimitReport} JVM per row (the phase shift of
 * {@code LimitScenario}: four event loops, small then large buffers on the other pair, no pause), the live bytes at
 * 50%, 67% and 80% of the limit, magalloc beside Netty's adaptive and pooled allocators. Direct rows run with the limit
 * and no other flag (as most servers run), with Netty's no-cleaner buffers (as the benchmark JVMs have them) and, on
 * JDK 24+, with native access; heap rows with {@code -Xmx} and heap buffers. Goal G11 (docs/benchmarks.md): at 50% and
 * 67%, no failed allocation and none over 100 ms; at 80%, fewer failures than both of Netty's allocators.
 */
final class LimitTable {
    static final String DIRECT_LIMIT = "-XX:MaxDirectMemorySize=96m";
    static final String HEAP_LIMIT = "-Xmx256m";
    private static final int[] PERCENTS = {50, 67, 80};
    private static final String[] ALLOCATORS = {"MAGALLOC", "ADAPTIVE", "POOLED"};
    private static final int ROUNDS = 6;
    /** Seconds a row may run: a stalled allocator's row ends here, with the rounds it finished. */
    private static final int SECONDS_QUICK = 10;
    private static final int SECONDS_LONG = 60;
    /** Beyond its own deadline, how long a row's JVM may take to end before it is killed. */
    private static final int GRACE_SECONDS = 30;
    private static final long GOAL_LONGEST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** One JVM: its flags besides the limit, and LimitReport's arguments. */
    record Row(String allocator, boolean direct, String flagsLabel, List<String> flags, int percent) {
        String limitFlag() {
            return direct ? DIRECT_LIMIT : HEAP_LIMIT;
        }
    }

    /** What one row measured (a parsed {@code LIMIT} line). */
    record Measured(Row row, long liveBytes, int roundsDone, int rounds, long allocations, long failures,
                    long longestNanos, long elapsedNanos) {
    }

    private final PrintStream console;
    private final List<String> extraJvmArgs;
    private final boolean quick;

    LimitTable(PrintStream console, List<String> extraJvmArgs, boolean quick) {
        this.console = console;
        this.extraJvmArgs = extraJvmArgs;
        this.quick = quick;
    }

    /** The rows, direct then heap, each flag set's three allocators together. */
    static List<Row> rows(int jdk) {
        Map<String, List<String>> directFlags = new LinkedHashMap<>();
        directFlags.put("limit only", List.of());
        directFlags.put("no-cleaner", List.of(BenchJvm.REFLECTION, BenchJvm.OPEN_NIO));
        if (jdk >= 24) {
            directFlags.put("native access", List.of("--enable-native-access=ALL-UNNAMED"));
        }
        List<Row> rows = new ArrayList<>();
        directFlags.forEach((label, flags) -> addRows(rows, true, label, flags));
        addRows(rows, false, "limit only", List.of());
        return rows;
    }

    private static void addRows(List<Row> rows, boolean direct, String label, List<String> flags) {
        for (int percent : PERCENTS) {
            for (String allocator : ALLOCATORS) {
                rows.add(new Row(allocator, direct, label, flags, percent));
            }
        }
    }

    /** Runs every row, prints the table and the goal lines, writes {@code limit.tsv} to {@code out}. */
    boolean run(Path out) throws IOException, InterruptedException {
        int seconds = quick ? SECONDS_QUICK : SECONDS_LONG;
        console.println("Memory under a limit (LimitReport, one JVM per row, " + DIRECT_LIMIT + " or " + HEAP_LIMIT
            + " and no other flag but those named): four event loops; at each of " + ROUNDS + " rounds two fill their "
            + "share of the live bytes with 64 B-4 KiB buffers and release them while the two others do so with 16 KiB-"
            + "1 MiB ones, then the roles swap, with no pause; live = bytes held at once, as a share of the limit; "
            + "longest = the slowest single allocation, failed or not; a row stops after " + seconds + " s.");
        TextTable table = new TextTable("allocator", "memory", "JVM flags", "live % of limit", "live MiB", "rounds",
            "allocations", "failed", "longest ms", "run s");
        List<String> tsv = new ArrayList<>();
        List<Measured> measured = new ArrayList<>();
        boolean ok = true;
        for (Row row : rows(Runtime.version().feature())) {
            List<String> lines = new ArrayList<>();
            int exit = runRow(row, seconds, lines);
            Measured m = parse(row, lines);
            if (m == null) {
                // A JVM whose threads died of OutOfMemoryError outside the allocator (heap rows) prints no line.
                ok = false;
                measured.add(new Measured(row, 0, 0, ROUNDS, 0, 0, 0, 0));
                console.println("LimitReport " + row + " FAILED (exit " + exit + "):");
                lines.forEach(l -> console.println("    " + l));
                table.add(row.allocator().toLowerCase(Locale.ROOT), row.direct() ? "direct" : "heap",
                    row.flagsLabel(), String.valueOf(row.percent()), "-", "no result", "-", "-", "-", "-");
                continue;
            }
            measured.add(m);
            tsv.add(lines.stream().filter(l -> l.startsWith(LimitReport.PREFIX)).findFirst().orElseThrow()
                .substring(LimitReport.PREFIX.length()) + "\t" + row.flagsLabel());
            table.add(row.allocator().toLowerCase(Locale.ROOT), row.direct() ? "direct" : "heap", row.flagsLabel(),
                String.valueOf(row.percent()), JmhResultTable.fmt(m.liveBytes() / (double) (1 << 20)),
                m.roundsDone() + "/" + m.rounds(), String.valueOf(m.allocations()), String.valueOf(m.failures()),
                JmhResultTable.fmt(m.longestNanos() / 1e6), JmhResultTable.fmt(m.elapsedNanos() / 1e9));
        }
        table.print(console);
        Files.write(out.resolve("limit.tsv"), tsv);
        printGoals(measured);
        return ok;
    }

    /** G11, per memory kind and flag set, for magalloc's rows. */
    private void printGoals(List<Measured> measured) {
        console.println("G11 memory under a limit: at 50% and 67% no failed allocation and none over 100 ms; at 80% "
            + "fewer failures than adaptive and pooled (a row that did not finish, or gave no result, counts as "
            + "failing):");
        for (Measured m : measured) {
            if (!m.row().allocator().equals("MAGALLOC")) {
                continue;
            }
            String where = (m.row().direct() ? "direct" : "heap") + ", " + m.row().flagsLabel() + ", "
                + m.row().percent() + "%";
            boolean finished = m.roundsDone() == m.rounds();
            if (m.row().percent() < 80) {
                boolean met = finished && m.failures() == 0 && m.longestNanos() <= GOAL_LONGEST_NANOS;
                console.printf(Locale.ROOT, "  %-40s failed %d, longest %s ms%s: %s%n", where, m.failures(),
                    JmhResultTable.fmt(m.longestNanos() / 1e6), finished ? "" : ", did not finish",
                    met ? "met" : "NOT met");
            } else {
                StringBuilder others = new StringBuilder();
                boolean met = finished;
                for (Measured other : measured) {
                    if (!other.row().allocator().equals("MAGALLOC") && other.row().direct() == m.row().direct()
                        && other.row().flagsLabel().equals(m.row().flagsLabel())
                        && other.row().percent() == m.row().percent()) {
                        boolean otherFinished = other.roundsDone() == other.rounds();
                        met &= m.failures() < other.failures() || !otherFinished && finished;
                        others.append(", ").append(other.row().allocator().toLowerCase(Locale.ROOT)).append(' ')
                            .append(other.failures()).append(otherFinished ? "" : " (did not finish)");
                    }
                }
                console.printf(Locale.ROOT, "  %-40s failed %d%s%s: %s%n", where, m.failures(),
                    finished ? "" : " (did not finish)", others, met ? "met" : "NOT met");
            }
        }
    }

    /** Runs a row's JVM; kills it if it outlives its deadline by {@link #GRACE_SECONDS}. */
    private int runRow(Row row, int seconds, List<String> lines) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add(row.limitFlag());
        command.addAll(row.flags());
        command.addAll(extraJvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LimitReport.class.getName());
        command.addAll(List.of(row.allocator(), row.direct() ? "direct" : "heap", String.valueOf(row.percent()),
            String.valueOf(ROUNDS), String.valueOf(seconds)));
        Path output = Files.createTempFile("limit-report", ".txt");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                .start();
            boolean ended = process.waitFor(seconds + GRACE_SECONDS, TimeUnit.SECONDS);
            if (!ended) {
                process.destroyForcibly().waitFor();
            }
            lines.addAll(Files.readAllLines(output, StandardCharsets.UTF_8));
            if (!ended) {
                lines.add("(killed: still running " + GRACE_SECONDS + " s after its deadline)");
            }
            return ended ? process.exitValue() : -1;
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /** The row's {@code LIMIT} line, or null if it printed none. */
    static Measured parse(Row row, List<String> lines) {
        for (String line : lines) {
            if (line.startsWith(LimitReport.PREFIX)) {
                // allocator, heap|direct, percent, limit, live, rounds done, rounds, allocations, failed, longest ns,
                // elapsed ns, first failure
                String[] c = line.substring(LimitReport.PREFIX.length()).split("\t");
                return new Measured(row, Long.parseLong(c[4]), Integer.parseInt(c[5]), Integer.parseInt(c[6]),
                    Long.parseLong(c[7]), Long.parseLong(c[8]), Long.parseLong(c[9]), Long.parseLong(c[10]));
            }
        }
        return null;
    }
}
