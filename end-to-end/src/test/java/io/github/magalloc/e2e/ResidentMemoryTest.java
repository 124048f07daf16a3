package io.github.magalloc.e2e;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The process's resident memory follows what magalloc holds after a peak, with nobody calling trim() (protocol 3b
 * (resident memory) in design.md): in a JVM of its own ({@link PeakRss}: {@code -Xms} = {@code -Xmx} = 1 GiB,
 * pre-touched, so the Java heap does not move the resident set), two event loops and two plain threads hold
 * {@value #PEAK_MIB} MiB of direct buffers, release them, and carry light traffic. The resident memory above its
 * level before the peak must come down to at most the allocator's used memory plus {@value #SLACK_MIB} MiB (here
 * within {@value #SECONDS} s; sampled each second up to {@value #MAX_SECONDS} s, a bound only a bug reaches); with
 * the trims turned off ({@code nativeTrimMillis(0)}) it must not have come down {@value #SECONDS} s after the release,
 * which shows that the bound is the trims' doing and that this test can fail (a slower machine only trims later). On JDK 24+ the trimmed run is repeated with
 * {@code --enable-native-access=ALL-UNNAMED}: without it (Netty's JDK 25 defaults) slabs' memory goes back by closing
 * their arenas on magalloc's background thread, with it through {@code free()} (docs/tuning.md, "Resident memory"),
 * and both must meet the bound. Linux with glibc only (elsewhere the C heap keeps or gives back freed memory by its
 * own rules).
 */
class ResidentMemoryTest {
    private static final int PEAK_MIB = 512;
    private static final int SECONDS = 10;
    private static final int MAX_SECONDS = 120;
    private static final long SLACK_MIB = 32;

    @BeforeAll
    static void onlyWithGlibc() throws IOException {
        Path maps = Path.of("/proc/self/maps");
        boolean glibc = Files.isReadable(maps) && Files.readString(maps).contains("libc.so.6");
        assumeTrue(glibc, "ResidentMemoryTest skipped: it checks trims of glibc's heap, and this is not Linux with "
            + "glibc (os.name " + System.getProperty("os.name") + ")");
    }

    private static final List<String> NO_FLAGS = List.of();
    private static final List<String> NATIVE_ACCESS = List.of("--enable-native-access=ALL-UNNAMED");

    @Test
    void residentMemoryComesDownToUsedMemoryAfterThePeak() throws Exception {
        long[] on = run(1000, NO_FLAGS);
        long[] off = run(0, NO_FLAGS);
        String table = String.format("after releasing %d MiB: trims on: used %.1f MiB, RSS above baseline %.1f MiB at "
            + "+%d s; trims off: used %.1f MiB, RSS above baseline %.1f MiB at +%d s", PEAK_MIB, mib(on[0]), mib(on[1]),
            on[2], mib(off[0]), mib(off[1]), off[2]);
        if (Runtime.version().feature() >= 24) {
            long[] nativeAccess = run(1000, NATIVE_ACCESS);
            table += String.format("; trims on, %s: used %.1f MiB, RSS above baseline %.1f MiB at +%d s",
                NATIVE_ACCESS.get(0), mib(nativeAccess[0]), mib(nativeAccess[1]), nativeAccess[2]);
            assertThat(nativeAccess[1]).as("RSS above baseline with trims and native access; " + table).isPositive()
                .isLessThanOrEqualTo(nativeAccess[0] + (SLACK_MIB << 20));
        }
        System.out.println(table);
        assertThat(on[1]).as("RSS above baseline with trims; " + table).isPositive()
            .isLessThanOrEqualTo(on[0] + (SLACK_MIB << 20));
        assertThat(off[1]).as("RSS above baseline without trims (the test's own check); " + table)
            .isGreaterThan(off[0] + (SLACK_MIB << 20));
    }

    /**
     * Used bytes, resident bytes above the baseline and the sample's seconds after the release: with trims, the first
     * sample from {@link #SECONDS} s on, each second, that meets the bound (or the one at {@link #MAX_SECONDS} s);
     * without, the sample at {@link #SECONDS} s.
     */
    private static long[] run(long nativeTrimMillis, List<String> flags) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch", "-XX:MaxDirectMemorySize=2g",
            "-Dio.netty.leakDetection.level=disabled", "-DpeakRss.untilSlackMib=" + SLACK_MIB));
        command.addAll(flags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), PeakRss.class.getName(),
            Long.toString(nativeTrimMillis), Integer.toString(PEAK_MIB), "OWNER"));
        for (int second = SECONDS; second <= (nativeTrimMillis > 0 ? MAX_SECONDS : SECONDS); second++) {
            command.add(Integer.toString(second));
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        long[] sample = null;
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                output.add(line);
                if (line.startsWith("RSS ")) {
                    String[] fields = line.split(" ");
                    sample = new long[] {Long.parseLong(fields[2]), Long.parseLong(fields[3]),
                        Long.parseLong(fields[1])};
                }
            }
        }
        assertThat(process.waitFor()).as("PeakRss exit; output: " + output).isZero();
        assertThat(sample).as("PeakRss sample; output: " + output).isNotNull();
        return sample;
    }

    private static double mib(long bytes) {
        return bytes / 1048576.0;
    }
}
