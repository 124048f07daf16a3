package io.github.magalloc.bench;

import io.netty.util.Version;
import io.netty.util.internal.PlatformDependent;

import java.util.ArrayList;
import java.util.List;

/**
 * JVM args of every forked benchmark JVM. Annotations need constants, so each is a constant here and the
 * benchmarks list them in {@code @Fork(jvmArgsAppend = ...)}; the runner passes {@link #ARGS} explicitly because
 * a jvmArgsAppend given to the JMH Runner replaces the annotation's. All are accepted by JDK 17 and JDK 25.
 */
public final class BenchJvm {
    /** 2 GiB, fixed: well above the 512 MiB under which Netty switches to its low-memory mode. */
    public static final String XMS = "-Xms2g";
    public static final String XMX = "-Xmx2g";
    /** Leak detection samples 1 allocation in 128 with a stack trace: noise for every allocator alike. */
    public static final String NO_LEAK_DETECTION = "-Dio.netty.leakDetection.level=disabled";
    /**
     * Netty's recommended pair for direct buffers without a Cleaner (JDK 9+); without it JDK 17 frees every
     * unpooled direct buffer through a Cleaner. JDK 25+ still gets no sun.misc.Unsafe from Netty by default
     * (add -Dio.netty.noUnsafe=false through the runner's --jvm-arg to compare with it); the runner prints which.
     */
    public static final String REFLECTION = "-Dio.netty.tryReflectionSetAccessible=true";
    public static final String OPEN_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    public static final List<String> ARGS = List.of(XMS, XMX, NO_LEAK_DETECTION, REFLECTION, OPEN_NIO);

    private BenchJvm() {
    }

    /**
     * {@code BenchJvm EVENT_LOOP|PLAIN}: prints the fork JVM args for that mode, space separated (for scripts).
     * {@code BenchJvm describe}: prints how Netty set itself up in this JVM (run it with the fork args).
     */
    public static void main(String[] args) {
        String what = args.length > 0 ? args[0] : "EVENT_LOOP";
        if (what.equals("describe")) {
            System.out.println(describe());
            return;
        }
        List<String> all = new ArrayList<>(ARGS);
        all.addAll(Workers.valueOf(what).jvmArgs);
        System.out.println(String.join(" ", all));
    }

    static String describe() {
        Version netty = Version.identify().get("netty-buffer");
        return "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
                + ", Netty " + (netty == null ? "?" : netty.artifactVersion())
                + ", " + Runtime.getRuntime().availableProcessors() + " CPUs"
                + ", max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB"
                + ", Unsafe " + PlatformDependent.hasUnsafe()
                + ", direct buffers without Cleaner " + PlatformDependent.useDirectBufferNoCleaner();
    }
}
