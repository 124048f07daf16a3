package io.github.magalloc.e2e;

import io.github.magalloc.workload.AllocatorKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ResultJsonTest {
    @Test
    void oneRowPerAllocatorWithTheMedians() {
        RunRow magalloc = new RunRow(AllocatorKind.MAGALLOC, 1000, 0, 12345.67, 100, 2500, 4000, 0, 0, 0,
                300L << 20, 0);
        RunRow adaptive = new RunRow(AllocatorKind.ADAPTIVE, 900, 2, 11000, 110, 3000.5, 5000, 0, 0, 0,
                (301L << 20) + (1L << 19), 0);
        assertThat(ResultJson.render(List.of(magalloc, adaptive))).isEqualTo("""
                {"rows":[
                  {"allocator":"magalloc","reqPerSec":12345.7,"p99Ms":2.500,"rssMiB":300.0,"failed":0},
                  {"allocator":"adaptive","reqPerSec":11000.0,"p99Ms":3.001,"rssMiB":301.5,"failed":2}
                ]}
                """);
    }
}
