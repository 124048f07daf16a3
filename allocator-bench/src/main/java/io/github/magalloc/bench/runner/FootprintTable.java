package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.Workers;
import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.SizeDistribution;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The footprint table: one {@link FootprintReport} JVM per configuration, with the benchmark forks' JVM args (RSS is
 * per process). Quick and --report: magalloc and Netty's two allocators on one configuration; --full: every
 * allocator, size distribution, live count and platform thread kind.
 */
final class FootprintTable {
    private final PrintStream console;
    private final ChildJvm jvm;
    private final boolean full;

    FootprintTable(PrintStream console, ChildJvm jvm, boolean full) {
        this.console = console;
        this.jvm = jvm;
        this.full = full;
    }

    /** Prints the table and writes its rows to {@code footprint.tsv} in {@code out}; false if a row's JVM failed. */
    boolean run(Path out) throws IOException, InterruptedException {
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
            for (String kind : SideBySide.MAIN3) {
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
            int exit = jvm.run(FootprintReport.class.getName(), List.of(config), lines);
            int rows = 0;
            for (String line : lines) {
                if (!line.startsWith(FootprintReport.PREFIX)) {
                    continue;
                }
                tsv.add(line.substring(FootprintReport.PREFIX.length()));
                String[] c = line.substring(FootprintReport.PREFIX.length()).split("\t");
                double live = Double.parseDouble(c[6]);
                double used = Double.parseDouble(c[7]);
                table.add(c[0], c[1], c[2], c[3], c[5], Mib.of(live), Mib.of(used),
                        live == 0 ? "-" : JmhResultTable.fmt(used / live) + "x", Mib.of(Double.parseDouble(c[8])),
                        c[9]);
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
}
