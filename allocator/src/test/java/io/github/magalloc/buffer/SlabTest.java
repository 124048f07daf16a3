package io.github.magalloc.buffer;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class SlabTest {
    /**
     * The system gives 16-byte alignment; direct slabs must start on a cache line anyway (see
     * {@link Slab#ALIGNMENT}), and keep exactly the asked size, so the bytes past it are never handed out.
     */
    @Test
    void directSlabsStartOnACacheLineAndHaveTheirSize() {
        for (int size : new int[] {64 * 1024, 96 * 1024, 128 * 1024, 256 * 1024, 1 << 20, 4 << 20, 12_345}) {
            for (int i = 0; i < 4; i++) {
                Slab slab = Slab.direct(size);
                try {
                    assertThat(slab.buffer.alignmentOffset(0, Slab.ALIGNMENT)).as("size %d", size).isZero();
                    assertThat(slab.buffer.capacity()).as("size %d", size).isEqualTo(size);
                    if (slab.hasAddress) {
                        assertThat(slab.address % Slab.ALIGNMENT).as("address, size %d", size).isZero();
                    }
                    slab.buffer.put(size - 1, (byte) 1); // the last byte is ours
                } finally {
                    slab.free();
                }
            }
        }
    }

    /**
     * Heap slabs for chunks from {@link Slab#HEAP_CUT_FROM} on are an array header shorter than their size, and say so
     * in {@link Slab#capacity}; smaller ones, huge buffers' and direct ones are their size exactly.
     */
    @Test
    void bigHeapSlabsForChunksAreAHeaderShort() {
        Slab big = Slab.heapForChunks(1 << 20);
        assertThat(big.size).isEqualTo(1 << 20);
        assertThat(big.capacity).isEqualTo(big.array.length).isEqualTo((1 << 20) - Slab.HEAP_ARRAY_HEADER);
        assertThat(Slab.heapForChunks(Slab.HEAP_CUT_FROM / 2).capacity).isEqualTo(Slab.HEAP_CUT_FROM / 2);
        assertThat(Slab.heap(1 << 20).capacity).isEqualTo(1 << 20);
        assertThat(Slab.capacityForChunks(1 << 20, true)).isEqualTo(1 << 20);
        assertThat(Slab.capacityForChunks(1 << 20, false)).isEqualTo(big.capacity);
    }

    /**
     * What the header-short arrays are for: on G1 with 1 MiB regions, a heap slab for chunks of 512 KiB or 1 MiB takes
     * its size of the heap, where an array of exactly that size (and its header) takes a region more, twice its size
     * (measured as a control, so that the check can fail). In a JVM of its own, whose heap and regions are fixed.
     */
    @Test
    void onG1AHeapSlabForChunksTakesItsSizeOfTheHeap() throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:+UseG1GC", "-Xms512m", "-Xmx512m", "-XX:G1HeapRegionSize=1m", "-cp",
            System.getProperty("java.class.path"), HeapSlabProbe.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
            lines = out.lines().collect(Collectors.toList());
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Map<String, Double> heapPerSize = new HashMap<>();
        for (String line : lines) {
            String[] c = line.split("\t");
            if (c.length == 2 && c[0].startsWith("HEAP")) {
                heapPerSize.put(c[0], Double.parseDouble(c[1]));
            }
        }
        assertThat(heapPerSize).as("the probe's output: %s", lines).hasSize(3);
        assertThat(heapPerSize.get("HEAP_FOR_CHUNKS_1M")).as("heap per 1 MiB slab for chunks").isLessThan(1.05);
        assertThat(heapPerSize.get("HEAP_FOR_CHUNKS_512K")).as("heap per 512 KiB slab for chunks").isLessThan(0.53);
        assertThat(heapPerSize.get("HEAP_EXACT_1M")).as("heap per exact 1 MiB array, the control").isGreaterThan(1.9);
    }

    /** Run by {@link #onG1AHeapSlabForChunksTakesItsSizeOfTheHeap}: MiB of heap per slab, 64 slabs of each kind. */
    public static final class HeapSlabProbe {
        public static void main(String[] args) {
            List<Slab> held = new ArrayList<>();
            System.out.println("HEAP_FOR_CHUNKS_1M\t" + heapPerSlab(held, () -> Slab.heapForChunks(1 << 20)));
            System.out.println("HEAP_FOR_CHUNKS_512K\t" + heapPerSlab(held, () -> Slab.heapForChunks(512 << 10)));
            System.out.println("HEAP_EXACT_1M\t" + heapPerSlab(held, () -> Slab.heap(1 << 20)));
            System.out.println(held.size() + " slabs held");
        }

        private static double heapPerSlab(List<Slab> held, Supplier<Slab> slab) {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            System.gc();
            long before = memory.getHeapMemoryUsage().getUsed();
            for (int i = 0; i < 64; i++) {
                held.add(slab.get());
            }
            System.gc();
            return (memory.getHeapMemoryUsage().getUsed() - before) / 64.0 / (1 << 20);
        }
    }
}
