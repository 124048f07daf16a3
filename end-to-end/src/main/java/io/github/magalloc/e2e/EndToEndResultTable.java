package io.github.magalloc.e2e;

import io.github.magalloc.workload.AllocatorKind;

import java.util.List;
import java.util.Locale;

/**
 * Markdown tables of end-to-end server runs (one row per allocator: req/s, latency, garbage, GC, RSS), then each value
 * divided by Netty adaptive's and by pooled's. Not the benchmarks' JmhResultTable, which lists JMH scores per
 * benchmark configuration.
 */
final class EndToEndResultTable {
    private static final String[] COLUMNS = {"req/s", "p50 µs", "p99 µs", "p99.9 µs", "alloc B/req", "GC count",
        "GC ms", "RSS MiB", "alloc used MiB"};
    /** Decimals per column: whole numbers except the MiB columns. */
    private static final int[] DECIMALS = {0, 0, 0, 0, 0, 0, 0, 1, 1};

    private EndToEndResultTable() {
    }

    static String render(List<RunRow> rows) {
        return render(rows, "verified");
    }

    /** {@code countLabel} names what the client counts as answered: "verified" (built-in client) or "2xx" (h2load). */
    static String render(List<RunRow> rows, String countLabel) {
        StringBuilder sb = new StringBuilder();
        sb.append(header("allocator", countLabel, "failed"));
        for (RunRow r : rows) {
            sb.append("| ").append(r.allocator().label()).append(" | ").append(r.verified()).append(" | ")
                    .append(r.failures());
            double[] v = r.values();
            for (int i = 0; i < v.length; i++) {
                sb.append(" | ").append(String.format(Locale.ROOT, "%." + DECIMALS[i] + "f", v[i]));
            }
            sb.append(" |\n");
        }
        for (AllocatorKind base : new AllocatorKind[] {AllocatorKind.ADAPTIVE, AllocatorKind.POOLED}) {
            RunRow baseRow = rows.stream().filter(r -> r.allocator() == base).findFirst().orElse(null);
            if (baseRow == null) {
                continue;
            }
            sb.append("\nRatio to ").append(base.label()).append(" (value / ").append(base.label())
                    .append("'s value; n/a where that is 0):\n\n");
            sb.append(header("allocator"));
            for (RunRow r : rows) {
                sb.append("| ").append(r.allocator().label());
                double[] v = r.values();
                double[] b = baseRow.values();
                for (int i = 0; i < v.length; i++) {
                    sb.append(" | ").append(b[i] == 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx", v[i] / b[i]));
                }
                sb.append(" |\n");
            }
        }
        return sb.toString();
    }

    private static String header(String... first) {
        StringBuilder sb = new StringBuilder("|");
        int n = first.length + COLUMNS.length;
        for (String f : first) {
            sb.append(' ').append(f).append(" |");
        }
        for (String c : COLUMNS) {
            sb.append(' ').append(c).append(" |");
        }
        sb.append("\n|");
        sb.append(" --- |".repeat(n));
        return sb.append('\n').toString();
    }
}
