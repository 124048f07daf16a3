package io.github.magalloc.e2e;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.PeakScenario;
import io.github.magalloc.workload.PeakScenario.After;
import io.github.magalloc.workload.PeakScenario.Releaser;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Memory back after a traffic peak on event loops, with nobody calling trim() (protocol 7 (decay) in design.md): two
 * Netty event executors hold a peak of mixed sizes (64 B to 64 KiB), release it (each loop its own buffers, or another
 * thread all of them), then carry light traffic (one 1 KiB buffer every 10 ms), none, or light traffic whose size class
 * moves every second. Heap and direct. The allocator's own metric must settle at or below the reuse budget plus
 * {@link #SLACK_BYTES} (with the default decay it does within about 2 s; the test waits up to
 * {@link #SETTLE_SECONDS}, which only a bug reaches), and, where Netty's adaptive allocator runs the same scenario,
 * settle at or below the least adaptive holds at any sample. The samples at fixed times go into the printed table
 * only: how soon a busy machine runs the ticks is no bug.
 */
class AfterPeakMemoryTest {
    private static final long PEAK_BYTES = 64L << 20;
    private static final long REUSE_BUDGET = 4L << 20;
    /** The chunks light traffic keeps: one per loop of the class it allocates from, with room to spare. */
    private static final long SLACK_BYTES = 1L << 20;
    /** How long the settling is awaited: only a bug reaches it (two decay periods of the default 1 s suffice). */
    private static final double SETTLE_SECONDS = 60;
    /** The table's sample times; the last sample waits, polling, for the bound until {@link #SETTLE_SECONDS}. */
    private static final double[] SAMPLES = {0, 1, 2, 3};
    private static final long SEED = 31;

    @Test
    void eventLoopsGiveThePeakBackWithNoTrim() throws Exception {
        List<String> table = new ArrayList<>();
        table.add(String.format("%-9s %-6s %-6s %-5s %9s %9s %9s %9s", "allocator", "memory", "after", "by",
            "released", "+1 s", "+2 s", "+3 s"));
        List<String> failures = new ArrayList<>();
        for (boolean direct : new boolean[] {true, false}) {
            for (After after : After.values()) {
                for (Releaser releaser : Releaser.values()) {
                    long bound = REUSE_BUDGET + SLACK_BYTES;
                    long[] magalloc = run(magalloc(), direct, after, releaser, bound);
                    table.add(row("magalloc", direct, after, releaser, magalloc));
                    if (magalloc[SAMPLES.length] > bound) {
                        failures.add(String.format("%s %s %s: %,d bytes used %.0f s after the release, bound %,d",
                            memory(direct), after, releaser, magalloc[SAMPLES.length], SETTLE_SECONDS, bound));
                    }
                    if (direct && after != After.MOVING && releaser == Releaser.OWNER) {
                        long[] adaptive =
                            run(AllocatorKind.ADAPTIVE.create(true), true, after, releaser, Long.MAX_VALUE);
                        table.add(row("adaptive", true, after, releaser, adaptive));
                        long adaptiveLeast = Long.MAX_VALUE;
                        for (int i = 0; i < SAMPLES.length; i++) {
                            adaptiveLeast = Math.min(adaptiveLeast, adaptive[i]);
                        }
                        if (magalloc[SAMPLES.length] > adaptiveLeast) {
                            failures.add(String.format("%s %s: magalloc settled at %,d bytes > adaptive's least %,d",
                                after, releaser, magalloc[SAMPLES.length], adaptiveLeast));
                        }
                    }
                }
            }
        }
        System.out.println(String.join(System.lineSeparator(), table));
        assertThat(failures).as(String.join(System.lineSeparator(), table)).isEmpty();
    }

    private static ByteBufAllocator magalloc() {
        return MagazineByteBufAllocator.builder().reuseBudgetBytes(REUSE_BUDGET).build();
    }

    /**
     * Used memory at each of {@link #SAMPLES} seconds after the release, then the first used memory at or below
     * {@code bound} up to {@link #SETTLE_SECONDS} (or the last seen).
     */
    private static long[] run(ByteBufAllocator allocator, boolean direct, After after, Releaser releaser, long bound)
            throws Exception {
        PeakScenario scenario = new PeakScenario(allocator, direct, 2);
        try {
            long peak = scenario.peak(PEAK_BYTES, releaser, SEED);
            assertThat(peak).isGreaterThanOrEqualTo(PEAK_BYTES);
            scenario.startAfter(after);
            long[] used = new long[SAMPLES.length + 1];
            for (int i = 0; i < SAMPLES.length; i++) {
                used[i] = scenario.usedMemoryAt(SAMPLES[i]);
            }
            used[SAMPLES.length] = scenario.awaitAtMost(scenario::usedMemory, bound, SETTLE_SECONDS);
            return used;
        } finally {
            scenario.close();
        }
    }

    private static String row(String allocator, boolean direct, After after, Releaser releaser, long[] used) {
        StringBuilder row = new StringBuilder(String.format("%-9s %-6s %-6s %-5s", allocator, memory(direct), after,
            releaser));
        for (int i = 0; i < SAMPLES.length; i++) {
            row.append(String.format(" %5.1f MiB", used[i] / 1048576.0));
        }
        return row.toString();
    }

    private static String memory(boolean direct) {
        return direct ? "direct" : "heap";
    }
}
