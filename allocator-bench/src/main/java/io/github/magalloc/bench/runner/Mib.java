package io.github.magalloc.bench.runner;

/** Bytes as the memory tables show them: MiB in {@link JmhResultTable#fmt}'s format, "-" for a negative count. */
final class Mib {
    private Mib() {
    }

    static String of(double bytes) {
        return bytes < 0 ? "-" : JmhResultTable.fmt(bytes / (1 << 20));
    }
}
