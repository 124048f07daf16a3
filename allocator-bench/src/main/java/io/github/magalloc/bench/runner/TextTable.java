package io.github.magalloc.bench.runner;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Left-aligned text columns, widths fitted to the content. */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();

    TextTable(String... header) {
        rows.add(header);
    }

    void add(String... cells) {
        rows.add(cells);
    }

    void print(PrintStream out) {
        int columns = rows.get(0).length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(String.format("%-" + widths[i] + "s", rows.get(r)[i])).append(i + 1 < columns ? "  " : "");
            }
            out.println(line.toString().stripTrailing());
            if (r == 0) {
                out.println("-".repeat(line.toString().stripTrailing().length()));
            }
        }
    }
}
