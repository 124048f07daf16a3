package io.github.magalloc.core;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * How a JVM trims the C heap ({@link NativeHeap}), each in a JVM of its own: not at all while the JVM's own trimmer
 * is on; through the diagnostic command, which creates the platform MBean server, by default; on JDK 22+ with native
 * access for the class path, through {@code malloc_trim} itself, with no MBean server.
 */
class NativeHeapRoutesTest {
    @Test
    void noTrimWhileTheJvmTrimsItself() throws Exception {
        assumeTrue(isLinux(), "trims run on Linux only");
        assertThat(probe("-XX:TrimNativeHeapInterval=60000")).startsWith("TRIM\tnull\t");
    }

    @Test
    void byDefaultTheDiagnosticCommandTrimsAndCreatesTheMBeanServer() throws Exception {
        assumeTrue(isLinux(), "trims run on Linux only");
        assertThat(probe()).startsWith("TRIM\tTrim native heap").endsWith("MBEAN_SERVERS\t1");
    }

    @Test
    void withNativeAccessMallocTrimIsCalledAndNoMBeanServerIsMade() throws Exception {
        assumeTrue(isLinux(), "trims run on Linux only");
        assumeTrue(Runtime.version().feature() >= 22, "the foreign function API is final from JDK 22");
        assertThat(probe("--enable-native-access=ALL-UNNAMED")).startsWith("TRIM\tmalloc_trim: ")
            .endsWith("MBEAN_SERVERS\t0");
    }

    /**
     * On a full direct memory limit the first trim by command, which makes the MBean server (and the JDK then reads the
     * container's files through temporary direct buffers), is postponed rather than failed on magalloc's background
     * thread, and makes no MBean server; once there is room, it trims.
     */
    @Test
    void onAFullLimitTheFirstTrimByCommandWaitsForRoom() throws Exception {
        assumeTrue(isLinux(), "trims run on Linux only");
        List<String> lines = probeLines(List.of("-XX:MaxDirectMemorySize=16m"), "full");
        assertThat(lines).anySatisfy(l -> assertThat(l).isEqualTo("FULL\t" + NativeHeap.POSTPONED + "\tMBEAN_SERVERS\t0"))
            .anySatisfy(l -> assertThat(l).startsWith("TRIM\tTrim native heap").endsWith("MBEAN_SERVERS\t1"));
    }

    private static boolean isLinux() {
        return System.getProperty("os.name", "").startsWith("Linux");
    }

    /** The probe's TRIM line from a JVM with this JVM's class path and {@code jvmArgs}. */
    private static String probe(String... jvmArgs) throws IOException, InterruptedException {
        List<String> lines = probeLines(List.of(jvmArgs));
        String found = lines.stream().filter(l -> l.startsWith("TRIM\t")).reduce((a, b) -> b).orElse(null);
        assertThat(found).as("the probe's output:%n%s", String.join("\n", lines)).isNotNull();
        return found;
    }

    /** Every line the probe printed, run with {@code jvmArgs} and {@code args}. */
    private static List<String> probeLines(List<String> jvmArgs, String... args)
        throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), NativeHeapProbe.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
            }
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return lines;
    }
}
