package io.github.magalloc.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Resident set size of this process, from /proc/self/status (Linux only). */
public final class Rss {
    private static final Path STATUS = Path.of("/proc/self/status");

    private Rss() {
    }

    /** VmRSS in bytes, or -1 where /proc is not available. */
    public static long bytes() {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("VmRSS:")) {
                    // "VmRSS:     123456 kB"
                    String kb = line.substring("VmRSS:".length()).trim().split("\\s+")[0];
                    return Long.parseLong(kb) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
