package io.github.magalloc.bench;

import java.util.List;

/**
 * JVM args of every forked benchmark JVM. Annotations need constants, so each is a constant here and the
 * benchmarks list them in {@code @Fork(jvmArgsAppend = ...)}; the runner passes {@link #ARGS} explicitly because
 * a jvmArgsAppend given to the JMH Runner replaces the annotation's.
 */
public final class BenchJvm {
    /** 2 GiB, fixed: well above the 512 MiB under which Netty switches to its low-memory mode. */
    public static final String XMS = "-Xms2g";
    public static final String XMX = "-Xmx2g";
    /** Leak detection samples 1 allocation in 128 with a stack trace: noise for every allocator alike. */
    public static final String NO_LEAK_DETECTION = "-Dio.netty.leakDetection.level=disabled";

    public static final List<String> ARGS = List.of(XMS, XMX, NO_LEAK_DETECTION);

    private BenchJvm() {
    }

    /** Prints the fork JVM args for a {@link Workers} mode, space separated, for scripts' -jvmArgsAppend. */
    public static void main(String[] args) {
        List<String> all = new java.util.ArrayList<>(ARGS);
        all.addAll(Workers.valueOf(args.length > 0 ? args[0] : "EVENT_LOOP").jvmArgs);
        System.out.println(String.join(" ", all));
    }
}
