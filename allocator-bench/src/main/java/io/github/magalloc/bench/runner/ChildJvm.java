package io.github.magalloc.bench.runner;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a main class of this jar in a JVM of its own with the benchmark forks' JVM args and collects its output lines:
 * one such JVM per row of the footprint, after-a-peak and receive tables, and one for the description of the
 * benchmark JVMs.
 */
final class ChildJvm {
    /** Args of every benchmark fork and footprint JVM. */
    private final List<String> jvmArgs;

    ChildJvm(List<String> jvmArgs) {
        this.jvmArgs = jvmArgs;
    }

    /** Runs a main class of this jar in a JVM with the benchmark forks' args; collects its output lines. */
    int run(String mainClass, List<String> args, List<String> lines) throws IOException, InterruptedException {
        return run(List.of(), mainClass, args, lines);
    }

    /**
     * As {@link #run(String, List, List)}, with {@code moreJvmArgs} before the forks' args: the JVM takes the last of
     * repeated options, so a --jvm-arg still overrides them.
     */
    int run(List<String> moreJvmArgs, String mainClass, List<String> args, List<String> lines)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(moreJvmArgs);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                lines.add(line);
            }
        }
        return process.waitFor();
    }
}
