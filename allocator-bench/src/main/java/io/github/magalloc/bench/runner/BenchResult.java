package io.github.magalloc.bench.runner;

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
 */
record BenchResult(String benchmark, String mode, int jmhThreads, Map<String, String> params,
                   double score, double error, String unit, Map<String, Double> secondary) {

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
        Map<?, ?> primary = (Map<?, ?>) row.get("primaryMetric");
        double score = number(primary.get("score"));
        double error = number(primary.get("scoreError"));
        String unit = (String) primary.get("scoreUnit");
        if (secondary.containsKey(PRODUCER)) {
            Map<?, ?> producer = (Map<?, ?>) ((Map<?, ?>) s).get(PRODUCER);
            score = number(producer.get("score"));
            error = number(producer.get("scoreError"));
            unit = (String) producer.get("scoreUnit");
        }
        return new BenchResult((String) row.get("benchmark"), (String) row.get("mode"),
                (int) number(row.get("threads")), params, score, error, unit, secondary);
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
