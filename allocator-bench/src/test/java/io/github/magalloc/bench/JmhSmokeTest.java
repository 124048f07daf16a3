package io.github.magalloc.bench;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the benchmarks from rotting: runs AllocPattern once per allocator (magalloc and adaptive) on event-loop
 * workers through the JMH Runner API, with the footprint profiler, and checks results came back. No timing is
 * asserted, only that a positive score and the footprint counters exist. About 10 s; JMH's output goes to
 * {@code target/jmh-smoke.log}.
 */
class JmhSmokeTest {
    @Test
    void allocPatternRunsForMagallocAndAdaptive() throws Exception {
        List<String> jvmArgs = new ArrayList<>(BenchJvm.ARGS);
        jvmArgs.addAll(Workers.EVENT_LOOP.jvmArgs);
        Options options = new OptionsBuilder()
                .include("\\.bench\\.AllocPatternBenchmark\\.")
                .param("allocator", "MAGALLOC", "ADAPTIVE")
                .param("distribution", "SOCKET_PROXY")
                .param("maxLive", "1024")
                .param("readWrite", "true")
                .param("direct", "true")
                .param("threads", Workers.EVENT_LOOP.name())
                .jvmArgsAppend(jvmArgs.toArray(new String[0]))
                .addProfiler(FootprintProfiler.class)
                .forks(1)
                .warmupIterations(1).warmupTime(TimeValue.seconds(1))
                .measurementIterations(1).measurementTime(TimeValue.seconds(1))
                .shouldFailOnError(true)
                .output("target/jmh-smoke.log") // JMH's console output; surefire runs in the module directory
                .build();

        // Another JMH run on the same machine (a developer's benchmark) must not fail this check.
        System.setProperty("jmh.ignoreLock", "true");
        Collection<RunResult> results = new Runner(options).run();

        assertThat(results).extracting(r -> r.getParams().getParam("allocator"))
                .containsExactlyInAnyOrder("MAGALLOC", "ADAPTIVE");
        for (RunResult r : results) {
            assertThat(r.getPrimaryResult().getScore()).as("score of %s", r.getParams().getParam("allocator"))
                    .isPositive();
            var secondary = r.getSecondaryResults(); // var: JMH declares Map<String, Result>, Result raw
            // 1,024 SOCKET_PROXY buffers of mean 2,534 B are about 2.5 MB.
            assertThat(secondary.get("mem.live").getScore()).isBetween(1.5e6, 4e6);
            assertThat(secondary).containsKey("mem.used");
            if (r.getParams().getParam("allocator").equals("ADAPTIVE")) {
                assertThat(secondary.get("mem.used").getScore()).isGreaterThanOrEqualTo(secondary.get("mem.live").getScore());
            }
        }
    }
}
