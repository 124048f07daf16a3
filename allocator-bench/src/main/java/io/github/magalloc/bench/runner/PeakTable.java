package io.github.magalloc.bench.runner;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The after-a-peak table, memory the allocators hold after a traffic peak with nobody calling trim: one
 * {@link PeakReport} JVM per row (direct buffers, two event loops). Quick: light traffic after the peak, each loop
 * releasing its own buffers; --report and --full add idle loops and releases from another thread, and sample for
 * longer.
 */
final class PeakTable {
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

    private final PrintStream console;
    private final ChildJvm jvm;
    private final boolean quick;

    PeakTable(PrintStream console, ChildJvm jvm, boolean quick) {
        this.console = console;
        this.jvm = jvm;
        this.quick = quick;
    }

    /** Prints the table and writes its samples to {@code peak.tsv} in {@code out}; false if a row's JVM failed. */
    boolean run(Path out) throws IOException, InterruptedException {
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
                    for (String kind : SideBySide.MAIN3) {
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
            int exit = jvm.run(jvmArgs, PeakReport.class.getName(), args, lines);
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
                    row.addAll(List.of(c[0], peakRow.flagsLabel(), c[2], c[3], Mib.of(Double.parseDouble(c[4]))));
                }
                row.add(Mib.of(Double.parseDouble(c[6])));
                rss.add(Mib.of(Double.parseDouble(c[7])));
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
}
