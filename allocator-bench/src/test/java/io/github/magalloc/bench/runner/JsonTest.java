package io.github.magalloc.bench.runner;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonTest {
    @Test
    @SuppressWarnings("unchecked")
    void parsesNestedValues() {
        Object v = Json.parse("{\"a\": [1, -2.5e3, \"x\\\"y\\u0041\"], \"b\": {}, \"c\": [], \"d\": true, \"e\": null}");
        Map<?, ?> m = (Map<?, ?>) v;
        assertThat((List<Object>) m.get("a")).containsExactly(1.0, -2500.0, "x\"yA");
        assertThat((Map<?, ?>) m.get("b")).isEmpty();
        assertThat((List<?>) m.get("c")).isEmpty();
        assertThat(m.get("d")).isEqualTo(Boolean.TRUE);
        assertThat(m.containsKey("e")).isTrue();
    }

    @Test
    void rejectsBrokenInput() {
        assertThatThrownBy(() -> Json.parse("{\"a\": 1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Json.parse("[1] x")).isInstanceOf(IllegalArgumentException.class);
    }

    /** Shape of JMH 1.37's -rf json output (trimmed), with its NaN-as-string errors. */
    static String row(String benchmark, String mode, String allocator, String extraParams, double score,
            String unit, String secondary) {
        return "{ \"jmhVersion\" : \"1.37\", \"benchmark\" : \"io.github.magalloc.bench." + benchmark + "\","
                + " \"mode\" : \"" + mode + "\", \"threads\" : 1, \"forks\" : 1,"
                + " \"params\" : { \"allocator\" : \"" + allocator + "\", \"direct\" : \"true\"" + extraParams
                + ", \"threads\" : \"EVENT_LOOP\" },"
                + " \"primaryMetric\" : { \"score\" : " + score + ", \"scoreError\" : \"NaN\","
                + " \"scoreConfidence\" : [ \"NaN\", \"NaN\" ], \"scoreUnit\" : \"" + unit + "\","
                + " \"rawData\" : [ [ " + score + " ] ] },"
                + " \"secondaryMetrics\" : { " + secondary + " } }";
    }

    static String metric(String name, double score, String unit) {
        return "\"" + name + "\" : { \"score\" : " + score + ", \"scoreError\" : 0.5, \"scoreUnit\" : \"" + unit + "\" }";
    }

    @Test
    void readsJmhRowsAndUsesTheProducerScoreForGroups() {
        String json = "[" + row("FixedSizeBenchmark.allocRelease", "avgt", "MAGALLOC", ", \"size\" : \"256\"", 12.5,
                "ns/op", metric("gc.alloc.rate.norm", 0.001, "B/op"))
                + "," + row("CrossThreadBenchmark.xthread", "thrpt", "ADAPTIVE", ", \"size\" : \"256\"", 40.0,
                "ops/us", metric("produce", 20.0, "ops/us") + "," + metric("consume", 20.0, "ops/us")) + "]";
        List<BenchResult> rows = ((List<?>) Json.parse(json)).stream().map(o -> BenchResult.of((Map<?, ?>) o)).toList();
        BenchResult fixed = rows.get(0);
        assertThat(fixed.name()).isEqualTo("FixedSize");
        assertThat(fixed.score()).isEqualTo(12.5);
        assertThat(fixed.error()).isNaN();
        assertThat(fixed.secondary("gc.alloc.rate.norm")).isEqualTo(0.001);
        assertThat(fixed.otherParams()).isEqualTo("direct=true size=256");
        assertThat(fixed.higherIsBetter()).isFalse();
        BenchResult cross = rows.get(1);
        assertThat(cross.name()).isEqualTo("CrossThread:produce");
        assertThat(cross.score()).isEqualTo(20.0);
        assertThat(cross.error()).isEqualTo(0.5);
        assertThat(cross.higherIsBetter()).isTrue();
    }
}
