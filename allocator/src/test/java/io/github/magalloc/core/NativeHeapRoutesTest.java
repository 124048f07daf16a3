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

    private static boolean isLinux() {
        return System.getProperty("os.name", "").startsWith("Linux");
    }

    /** The probe's line from a JVM with this JVM's class path and {@code jvmArgs}. */
    private static String probe(String... jvmArgs) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmArgs));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), NativeHeapProbe.class.getName()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String found = null;
        StringBuilder all = new StringBuilder();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                all.append(line).append('\n');
                if (line.startsWith("TRIM\t")) {
                    found = line;
                }
            }
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(found).as("the probe's output:%n%s", all).isNotNull();
        return found;
    }
}
