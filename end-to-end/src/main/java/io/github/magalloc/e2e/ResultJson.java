package io.github.magalloc.e2e;

import java.util.List;
import java.util.Locale;

/**
 * The runner's medians as JSON, one row per allocator: {@code {"rows":[{"allocator":"magalloc","reqPerSec":...,
 * "p99Ms":...,"rssMiB":...,"failed":0}, ...]}}.
 */
final class ResultJson {
    private ResultJson() {
    }

    static String render(List<RunRow> rows) {
        StringBuilder sb = new StringBuilder("{\"rows\":[");
        for (int i = 0; i < rows.size(); i++) {
            RunRow r = rows.get(i);
            sb.append(i == 0 ? "\n  " : ",\n  ").append(String.format(Locale.ROOT,
                    "{\"allocator\":\"%s\",\"reqPerSec\":%.1f,\"p99Ms\":%.3f,\"rssMiB\":%.1f,\"failed\":%d}",
                    r.allocator().label(), r.requestsPerSecond(), r.p99Micros() / 1000, r.rssBytes() / 1048576.0,
                    r.failures()));
        }
        return sb.append("\n]}\n").toString();
    }
}
