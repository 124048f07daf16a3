package io.github.magalloc.bench.runner;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A bar chart (one self-contained SVG file: no script, no font or style sheet from the network) of how magalloc
 * compares with each Netty allocator, one group of bars per benchmark row. Each bar is magalloc's advantage in
 * that configuration: the other allocator's time divided by magalloc's for average-time rows, magalloc's
 * throughput divided by the other's for throughput rows. Turning the ratio around for time rows (the table
 * prints score / adaptive) makes every bar read the same way: right of 1x magalloc is better, left it is worse.
 * The scale is logarithmic, so 2x and 0.5x are equally long.
 *
 * <p>The runner writes it next to the JSON results; re-render any saved run with
 * {@code java -cp allocator-bench/target/benchmarks.jar io.github.magalloc.bench.runner.RatioChart OUT.svg FILE.json...}.
 */
public final class RatioChart {
    static final String MAGALLOC = "MAGALLOC";
    /** Netty's allocators in the order of the legend, with colours told apart also by colour-blind readers. */
    static final Map<String, String> COLOURS = new LinkedHashMap<>();

    static {
        COLOURS.put("ADAPTIVE", "#0072B2");
        COLOURS.put("POOLED", "#E69F00");
        COLOURS.put("POOLED_ALL_THREADS", "#009E73");
        COLOURS.put("UNPOOLED", "#CC79A7");
    }

    private static final int WIDTH = 960;
    private static final int MARGIN = 20;
    private static final int LABEL_HEIGHT = 18;
    private static final int BAR_HEIGHT = 14;
    private static final int BAR_GAP = 3;
    private static final int GROUP_GAP = 12;
    private static final int HEADER_HEIGHT = 92;
    private static final int AXIS_HEIGHT = 30;
    /** A white outline under text that crosses the grid lines, so the lines do not run through the letters. */
    private static final String HALO = "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\"";

    /** One benchmark row: magalloc's result and the other allocators' results in the same configuration. */
    record Row(BenchResult magalloc, Map<String, BenchResult> others) {
        String label() {
            BenchResult r = magalloc;
            return r.name() + " \u00b7 " + r.workers() + (r.jmhThreads() > 1 ? " \u00b7 " + r.jmhThreads() + " threads" : "")
                    + (r.otherParams().isEmpty() ? "" : " \u00b7 " + r.otherParams())
                    + " \u00b7 magalloc " + JmhResultTable.fmt(r.score()) + " " + r.unit();
        }

        /** Greater than 1 when magalloc did better than {@code other}. */
        double advantage(BenchResult other) {
            return magalloc.higherIsBetter() ? magalloc.score() / other.score() : other.score() / magalloc.score();
        }
    }

    private RatioChart() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: RatioChart OUT.svg RESULT.json...");
            System.exit(2);
        }
        List<BenchResult> results = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            results.addAll(BenchResult.load(Path.of(args[i])));
        }
        write(results, "from " + (args.length - 1) + " result file(s)", Path.of(args[0]));
    }

    static void write(List<BenchResult> results, String subtitle, Path file) throws IOException {
        Files.writeString(file, render(results, subtitle), StandardCharsets.UTF_8);
    }

    /** Rows that have a magalloc result and at least one Netty allocator to compare it with, in table order. */
    static List<Row> rows(List<BenchResult> results) {
        Map<String, Row> rows = new LinkedHashMap<>();
        List<BenchResult> sorted = new ArrayList<>(results);
        sorted.sort(Comparator.comparing(BenchResult::name).thenComparing(BenchResult::workers)
                .thenComparing(BenchResult::otherParams).thenComparingInt(BenchResult::jmhThreads));
        for (BenchResult r : sorted) {
            if (r.allocator().equals(MAGALLOC)) {
                rows.put(r.configKey(), new Row(r, new LinkedHashMap<>()));
            }
        }
        for (BenchResult r : sorted) {
            Row row = rows.get(r.configKey());
            if (row != null && COLOURS.containsKey(r.allocator()) && usable(r) && usable(row.magalloc())) {
                row.others().put(r.allocator(), r);
            }
        }
        List<Row> out = new ArrayList<>();
        for (Row row : rows.values()) {
            if (!row.others().isEmpty()) {
                // Legend order inside each group, whatever order the results came in.
                Map<String, BenchResult> ordered = new LinkedHashMap<>();
                COLOURS.keySet().forEach(a -> {
                    if (row.others().containsKey(a)) {
                        ordered.put(a, row.others().get(a));
                    }
                });
                out.add(new Row(row.magalloc(), ordered));
            }
        }
        return out;
    }

    private static boolean usable(BenchResult r) {
        return Double.isFinite(r.score()) && r.score() > 0;
    }

    static String render(List<BenchResult> results, String subtitle) {
        List<Row> rows = rows(results);
        // Log2 axis from a power of two below the smallest ratio to one above the largest, at least 0.25x..4x.
        int lo = -2;
        int hi = 2;
        for (Row row : rows) {
            for (BenchResult other : row.others().values()) {
                double log = Math.log(row.advantage(other)) / Math.log(2);
                lo = Math.min(lo, (int) Math.floor(log));
                hi = Math.max(hi, (int) Math.ceil(log));
            }
        }
        int plotLeft = MARGIN + 10;
        int plotRight = WIDTH - MARGIN - 50; // room for the value printed after a bar at the right end
        int bodyHeight = 0;
        for (Row row : rows) {
            bodyHeight += LABEL_HEIGHT + row.others().size() * (BAR_HEIGHT + BAR_GAP) + GROUP_GAP;
        }
        int height = HEADER_HEIGHT + bodyHeight + AXIS_HEIGHT + MARGIN;
        Scale x = new Scale(lo, hi, plotLeft, plotRight);

        StringBuilder svg = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
                .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        text(svg, MARGIN, 24, "font-size=\"16\" font-weight=\"bold\"",
                "magalloc compared with Netty's allocators, per benchmark row");
        text(svg, MARGIN, 44, "fill=\"#444444\"", "Bar = how many times better magalloc did: other's ns/op / "
                + "magalloc's, or magalloc's ops/us / other's. Right of 1x: magalloc better. Log scale.");
        text(svg, MARGIN, 62, "fill=\"#444444\"", subtitle);
        int legendX = MARGIN;
        for (Map.Entry<String, String> e : COLOURS.entrySet()) {
            if (rows.stream().noneMatch(row -> row.others().containsKey(e.getKey()))) {
                continue;
            }
            svg.append("<rect class=\"legend\" x=\"").append(legendX).append("\" y=\"72\" width=\"12\" height=\"12\" fill=\"")
                    .append(e.getValue()).append("\"/>\n");
            text(svg, legendX + 16, 82, "", "vs " + e.getKey());
            legendX += 40 + 8 * e.getKey().length();
        }

        int top = HEADER_HEIGHT;
        int bottom = HEADER_HEIGHT + bodyHeight;
        for (int p = lo; p <= hi; p++) {
            double px = x.at(p);
            svg.append("<line x1=\"").append(fmt(px)).append("\" y1=\"").append(top).append("\" x2=\"").append(fmt(px))
                    .append("\" y2=\"").append(bottom).append("\" stroke=\"").append(p == 0 ? "#000000" : "#dddddd")
                    .append("\" stroke-width=\"").append(p == 0 ? "1.5" : "1").append("\"/>\n");
            text(svg, px, bottom + 16, "text-anchor=\"middle\"", tick(p));
        }
        text(svg, (plotLeft + plotRight) / 2.0, bottom + 30, "text-anchor=\"middle\" fill=\"#444444\"",
                "\u2190 magalloc worse | magalloc better \u2192");

        int y = top;
        for (Row row : rows) {
            text(svg, MARGIN, y + 13, HALO, row.label());
            y += LABEL_HEIGHT;
            for (Map.Entry<String, BenchResult> e : row.others().entrySet()) {
                double advantage = row.advantage(e.getValue());
                double log = Math.log(advantage) / Math.log(2);
                double x0 = Math.min(x.at(0), x.at(log));
                double width = Math.max(1, Math.abs(x.at(log) - x.at(0)));
                svg.append("<rect class=\"bar\" data-allocator=\"").append(e.getKey()).append("\" x=\"").append(fmt(x0))
                        .append("\" y=\"").append(y).append("\" width=\"").append(fmt(width)).append("\" height=\"")
                        .append(BAR_HEIGHT).append("\" fill=\"").append(COLOURS.get(e.getKey())).append("\">");
                svg.append("<title>").append(escape(e.getKey() + " " + JmhResultTable.fmt(e.getValue().score()) + " "
                        + e.getValue().unit() + ", magalloc " + JmhResultTable.fmt(row.magalloc().score()) + " "
                        + row.magalloc().unit())).append("</title></rect>\n");
                boolean right = log >= 0;
                text(svg, right ? x0 + width + 4 : x0 - 4, y + BAR_HEIGHT - 3,
                        "class=\"value\" " + HALO + (right ? "" : " text-anchor=\"end\""), ratio(advantage));
                y += BAR_HEIGHT + BAR_GAP;
            }
            y += GROUP_GAP;
        }
        if (rows.isEmpty()) {
            text(svg, MARGIN, top + 14, "", "No row has both a magalloc result and a Netty allocator's.");
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** Maps a log2 value to a pixel column. */
    private record Scale(int lo, int hi, int left, int right) {
        double at(double log2) {
            return left + (log2 - lo) * (right - left) / (hi - lo);
        }
    }

    /** A measured ratio, as the table prints numbers: "1.28x". */
    static String ratio(double v) {
        return JmhResultTable.fmt(v) + "x";
    }

    /** An axis tick at a power of two: "0.25x", "1x", "8x". */
    static String tick(int log2) {
        return BigDecimal.valueOf(Math.pow(2, log2)).stripTrailingZeros().toPlainString() + "x";
    }

    private static void text(StringBuilder svg, double x, double y, String attributes, String content) {
        svg.append("<text x=\"").append(fmt(x)).append("\" y=\"").append(fmt(y)).append('"')
                .append(attributes.isEmpty() ? "" : " " + attributes).append('>').append(escape(content))
                .append("</text>\n");
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
