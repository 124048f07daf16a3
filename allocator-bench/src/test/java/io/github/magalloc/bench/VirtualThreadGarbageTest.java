package io.github.magalloc.bench;

import io.github.magalloc.bench.VirtualThreadGarbage.Owner;
import io.github.magalloc.workload.VirtualThreadRequests;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link VirtualThreadGarbage} attributes each allocation to the first frame outside the JDK, and counts exactly:
 * run in a JVM of its own without thread-local allocation buffers, it finds one {@code VirtualThread} per task,
 * which a sampled count would not; with them, it refuses to run.
 */
class VirtualThreadGarbageTest {
    @Test
    void anAllocationBelongsToTheFirstFrameOutsideTheJdk() {
        assertThat(VirtualThreadGarbage.ownerOf(List.of("jdk.internal.vm.Continuation", "java.lang.Thread",
            "io.github.magalloc.core.PaddedSpinLock", "io.github.magalloc.workload.VirtualThreadRequests")))
            .isEqualTo(Owner.ALLOCATOR);
        assertThat(VirtualThreadGarbage.ownerOf(List.of("java.nio.DirectByteBuffer", "io.netty.buffer.PoolArena")))
            .isEqualTo(Owner.ALLOCATOR);
        assertThat(VirtualThreadGarbage.ownerOf(List.of("jdk.internal.vm.Continuation", "java.lang.Thread",
            "io.github.magalloc.workload.VirtualThreadRequests", "io.github.magalloc.core.Stripes")))
            .isEqualTo(Owner.TASK);
        assertThat(VirtualThreadGarbage.ownerOf(List.of("jdk.jfr.internal.EventInstrumentation",
            "io.github.magalloc.bench.VirtualThreadGarbage"))).isEqualTo(Owner.MEASUREMENT);
        assertThat(VirtualThreadGarbage.ownerOf(List.of("java.util.concurrent.ForkJoinPool", "java.lang.Thread")))
            .isEqualTo(Owner.JDK);
        assertThat(VirtualThreadGarbage.ownerOf(List.of())).isEqualTo(Owner.JDK);
    }

    @Test
    @Timeout(120)
    void countsOneVirtualThreadPerTaskAndTheAllocatorsObjects() throws Exception {
        assumeTrue(VirtualThreadRequests.virtualThreads().isPresent(), VirtualThreadRequests.unavailableReason());
        Result run = run("-XX:-UseTLAB", "MAGALLOC", "1", "2000");
        assertThat(run.exitCode).as(run.output).isZero();
        assertThat(perTask(run.output, "TASK", "java.lang.VirtualThread")).as(run.output).isEqualTo("1.000");
        assertThat(run.output).contains("ALLOCATOR    total").contains("B/task, all but the measurement's:");

        // Netty's pooled allocator gives every virtual thread a thread cache: its own objects, counted as such.
        Result pooled = run("-XX:-UseTLAB", "POOLED", "1", "2000");
        assertThat(pooled.exitCode).as(pooled.output).isZero();
        assertThat(perTask(pooled.output, "ALLOCATOR", "io.netty.buffer.PoolThreadCache")).as(pooled.output)
            .isEqualTo("1.000");
    }

    @Test
    @Timeout(60)
    void refusesToRunWithThreadLocalAllocationBuffers() throws Exception {
        assumeTrue(VirtualThreadRequests.virtualThreads().isPresent(), VirtualThreadRequests.unavailableReason());
        Result run = run("-XX:+UseTLAB", "MAGALLOC", "1", "100");
        assertThat(run.exitCode).isEqualTo(2);
        assertThat(run.output).contains("run with -XX:-UseTLAB");
    }

    /** The objects-per-task column of the row of {@code owner} and {@code className}, or null. */
    private static String perTask(String output, String owner, String className) {
        Matcher row = Pattern.compile("(?m)^" + owner + "\\s+" + Pattern.quote(className) + "\\s+(\\S+)\\s+\\S+$")
            .matcher(output);
        return row.find() ? row.group(1) : null;
    }

    private record Result(int exitCode, String output) {
    }

    private static Result run(String tlabOption, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), tlabOption, "-Xmx512m",
            "-cp", System.getProperty("java.class.path"), VirtualThreadGarbage.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.waitFor(), output);
    }
}
