package io.github.magalloc.bench.runner;

import io.github.magalloc.bench.Medians;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of JMH's JSON result, reduced to what the report needs. For the cross-thread group benchmark the
 * headline score is the producer's ({@code produce}) secondary result, as the goals compare producer throughput.
 * {@code forkScores} are the headline metric's mean per fork, in fork order (empty if JMH wrote no raw data).
 */
record BenchResult(String benchmark, String mode, int jmhThreads, Map<String, String> params,
                   double score, double error, String unit, Map<String, Double> secondary, List<Double> forkScores) {

    static final String PRODUCER = "produce";

    String allocator() {
        return params.getOrDefault("allocator", "?");
    }

    /** "EVENT_LOOP" or "PLAIN". */
    String workers() {
        return params.getOrDefault("threads", "?");
    }

    /** Short name: "AllocPattern", "CrossThread:produce", ... */
    String name() {
        String simple = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
        simple = simple.substring(0, simple.indexOf('.')).replace("Benchmark", "");
        return secondary.containsKey(PRODUCER) ? simple + ":" + PRODUCER : simple;
    }

    String param(String key) {
        return params.get(key);
    }

    /** Throughput: higher is better; average time: lower is better. */
    boolean higherIsBetter() {
        return mode.equals("thrpt");
    }

    /** Params other than allocator and threads, "k=v k=v". */
    String otherParams() {
        StringBuilder sb = new StringBuilder();
        params.forEach((k, v) -> {
            if (!k.equals("allocator") && !k.equals("threads")) {
                sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v);
            }
        });
        return sb.toString();
    }

    /** Identifies the configuration regardless of the allocator: rows with equal keys are compared. */
    String configKey() {
        return benchmark + '|' + mode + '|' + jmhThreads + '|' + workers() + '|' + otherParams();
    }

    double secondary(String label) {
        return secondary.getOrDefault(label, Double.NaN);
    }

    /** Median of the per-fork scores; NaN without any. */
    double medianOfForks() {
        return Medians.of(forkScores);
    }

    /** The worst fork: the lowest score for throughput, the highest for average time; NaN without any. */
    double worstFork() {
        if (forkScores.isEmpty()) {
            return Double.NaN;
        }
        double worst = forkScores.get(0);
        for (double score : forkScores) {
            worst = higherIsBetter() ? Math.min(worst, score) : Math.max(worst, score);
        }
        return worst;
    }

    static List<BenchResult> load(Path jsonFile) throws IOException {
        List<BenchResult> results = new ArrayList<>();
        for (Object o : (List<?>) Json.parse(Files.readString(jsonFile, StandardCharsets.UTF_8))) {
            results.add(of((Map<?, ?>) o));
        }
        return results;
    }

    static BenchResult of(Map<?, ?> row) {
        Map<String, String> params = new LinkedHashMap<>();
        Object p = row.get("params");
        if (p instanceof Map) {
            ((Map<?, ?>) p).forEach((k, v) -> params.put((String) k, String.valueOf(v)));
        }
        Map<String, Double> secondary = new LinkedHashMap<>();
        Object s = row.get("secondaryMetrics");
        if (s instanceof Map) {
            ((Map<?, ?>) s).forEach((k, v) -> secondary.put((String) k, number(((Map<?, ?>) v).get("score"))));
        }
        Map<?, ?> headline = (Map<?, ?>) row.get("primaryMetric");
        if (secondary.containsKey(PRODUCER)) {
            headline = (Map<?, ?>) ((Map<?, ?>) s).get(PRODUCER);
        }
        return new BenchResult((String) row.get("benchmark"), (String) row.get("mode"),
                (int) number(row.get("threads")), params, number(headline.get("score")),
                number(headline.get("scoreError")), (String) headline.get("scoreUnit"), secondary,
                forkMeans(headline.get("rawData")));
    }

    /** JMH's rawData is one list of iteration scores per fork: the mean of each. */
    private static List<Double> forkMeans(Object rawData) {
        List<Double> means = new ArrayList<>();
        if (rawData instanceof List) {
            for (Object fork : (List<?>) rawData) {
                double sum = 0;
                int n = 0;
                for (Object iteration : (List<?>) fork) {
                    sum += number(iteration);
                    n++;
                }
                if (n > 0) {
                    means.add(sum / n);
                }
            }
        }
        return List.copyOf(means);
    }

    /** JMH writes NaN and infinities as strings. */
    private static double number(Object value) {
        if (value instanceof Number) {
            return ((Number) value).doubleValue();
        }
        if (value instanceof String) {
            try {
                return Double.parseDouble((String) value);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }
}
