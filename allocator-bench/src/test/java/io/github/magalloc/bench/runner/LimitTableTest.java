package io.github.magalloc.bench.runner;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The memory-under-a-limit table: its rows, and one real row's JVM, whose line the table parses. No timing. */
class LimitTableTest {
    @Test
    void everyShareAllocatorAndFlagSetHasARow() {
        assertThat(LimitTable.rows(17)).hasSize(27)
            .filteredOn(LimitTable.Row::direct).extracting(LimitTable.Row::flagsLabel).containsOnly("limit only",
                "no-cleaner");
        assertThat(LimitTable.rows(25)).hasSize(36)
            .filteredOn(r -> !r.direct()).extracting(LimitTable.Row::limitFlag).containsOnly(LimitTable.HEAP_LIMIT);
        assertThat(LimitTable.rows(25)).extracting(LimitTable.Row::percent).containsOnly(50, 67, 80);
    }

    @Test
    void aRowsJvmPrintsALineTheTableReads() throws Exception {
        LimitTable.Row row = new LimitTable.Row("MAGALLOC", true, "limit only", List.of(), 50);
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            row.limitFlag(), "-cp", System.getProperty("java.class.path"), LimitReport.class.getName(), "MAGALLOC",
            "direct", "50", "1", "60");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                lines.add(line);
            }
        }
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
        LimitTable.Measured measured = LimitTable.parse(row, lines);
        assertThat(measured).as("the row's output: %s", lines).isNotNull();
        assertThat(measured.rounds()).isEqualTo(1);
        assertThat(measured.roundsDone()).isEqualTo(1);
        assertThat(measured.liveBytes()).isEqualTo((96L << 20) / 2);
        assertThat(measured.allocations()).isPositive();
        assertThat(measured.failures()).isZero();
    }
}
