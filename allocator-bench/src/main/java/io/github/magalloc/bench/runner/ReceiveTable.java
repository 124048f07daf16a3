package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.Workers;
import io.github.magalloc.bench.receive.ClientMode;
import io.github.magalloc.bench.receive.ReceiveSetting;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The receive table, memory held for the request bytes in flight of an HTTP server with slow clients: one
 * {@link ReceiveReport} JVM per row (direct buffers, one worker event loop), for each receive setting and allocator.
 * Quick: paced clients and four settings, 2 s of warm-up and 4 s measured; --report and --full: every setting paced,
 * and back to back for Netty's adaptive receive allocator and magalloc's, 5 s + 15 s.
 */
final class ReceiveTable {
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

    private final PrintStream console;
    private final ChildJvm jvm;
    private final boolean quick;

    ReceiveTable(PrintStream console, ChildJvm jvm, boolean quick) {
        this.console = console;
        this.jvm = jvm;
        this.quick = quick;
    }

    /**
     * Prints the table and writes its rows to {@code receive.tsv} in {@code out}; false if a row's JVM failed. Adds
     * one {@link BenchResult} per row to {@code chartRows} (score: mean used MiB, lower is better), for the chart's
     * Receive group.
     */
    boolean run(Path out, List<BenchResult> chartRows) throws IOException, InterruptedException {
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
            for (String kind : SideBySide.MAIN3) {
                List<String> args = List.of(kind, "direct", row.getKey().label(), row.getValue().label(),
                        String.valueOf(row.getValue().defaultClients()), seconds.get(0), seconds.get(1));
                List<String> lines = new ArrayList<>();
                int exit = jvm.run(ReceiveReport.class.getName(), args, lines);
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
                table.add(c[0], c[2], c[3], JmhResultTable.fmt(Double.parseDouble(c[8])), Mib.of(used),
                        Mib.of(Double.parseDouble(c[10])), JmhResultTable.fmt(Double.parseDouble(c[11])) + "x",
                        Mib.of(Double.parseDouble(c[12])), Mib.of(Double.parseDouble(c[c.length - 1])), c[13],
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
}
