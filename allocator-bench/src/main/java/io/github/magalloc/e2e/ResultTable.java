package io.github.magalloc.e2e;

import java.util.List;
import java.util.Locale;

/** Markdown tables of the runs: absolute values, then each value divided by Netty adaptive's and by pooled's. */
final class ResultTable {
    private static final String[] COLUMNS = {"req/s", "p50 µs", "p99 µs", "p99.9 µs", "alloc B/req", "GC count",
        "GC ms", "RSS MiB", "alloc used MiB"};

    private ResultTable() {
    }

    static String render(List<RunRow> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(header("allocator", "verified", "failed"));
        for (RunRow r : rows) {
            sb.append("| ").append(r.allocator().label()).append(" | ").append(r.verified()).append(" | ")
                    .append(r.failures());
            for (double v : r.values()) {
                sb.append(" | ").append(format(v));
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

    private static String format(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return String.format(Locale.ROOT, "%d", (long) v);
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.0f" : "%.1f", v);
    }
}
