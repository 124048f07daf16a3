package io.github.magalloc.soak;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JUnit entry point of the soak: runs {@link Soak#main} in a JVM of its own (the leak detector must be installed
 * before Netty's buffer classes load, and PARANOID must not slow other tests), for {@code -Dsoak.seconds}
 * (60 in CI). The soak's own output explains any failure.
 */
class SoakTest {
    @Test
    void soakPasses() throws Exception {
        long seconds = Long.getLong("soak.seconds", 60);
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        String classPath = System.getProperty("java.class.path");
        Process process = new ProcessBuilder(List.of(java, "-Xmx1g", "-Dsoak.seconds=" + seconds,
            "-cp", classPath, Soak.class.getName()))
            .redirectErrorStream(true)
            .start();
        // Copied through System.out: surefire's channel must not be written to directly.
        Thread pump = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
                out.lines().forEach(System.out::println);
            } catch (IOException e) {
                System.out.println("soak output lost: " + e);
            }
        }, "soak-output");
        pump.start();
        boolean ended = process.waitFor(seconds + 240, TimeUnit.SECONDS);
        pump.join(10_000);
        if (!ended) {
            process.destroyForcibly();
        }
        assertThat(ended).as("soak ended in time").isTrue();
        assertThat(process.exitValue()).as("soak exit code (output above)").isZero();
    }
}
