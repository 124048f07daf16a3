package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
import io.netty.util.internal.CleanableDirectBuffer;

import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServerFactory;

/**
 * Run in a JVM of its own by {@link NativeHeapRoutesTest}: trims the C heap once as magalloc's background thread does
 * and prints what the trim answered ({@code null} where this JVM does not trim) and how many MBean servers exist
 * after it. With {@code full}: first with the direct memory limit full (direct buffers, taken until refused),
 * then again once they are freed. The filler is memory whose {@code clean()} frees it at once on every JDK (Netty's
 * plain {@code allocateDirect(int)} leaves it to the garbage collector on JDK 25 without {@code Unsafe}).
 */
public final class NativeHeapProbe {
    private NativeHeapProbe() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("full")) {
            List<CleanableDirectBuffer> filler = new ArrayList<>();
            fill(filler, 1 << 20);
            fill(filler, 4096);
            String postponed = NativeHeap.trim();
            int servers = MBeanServerFactory.findMBeanServer(null).size();
            for (CleanableDirectBuffer buffer : filler) {
                buffer.clean();
            }
            System.out.println("FULL\t" + postponed + "\tMBEAN_SERVERS\t" + servers);
        }
        String answer = NativeHeap.trim();
        System.out.println("TRIM\t" + answer + "\tMBEAN_SERVERS\t" + MBeanServerFactory.findMBeanServer(null).size());
    }

    private static void fill(List<CleanableDirectBuffer> filler, int size) {
        try {
            while (true) {
                filler.add(Slab.allocateDirectMemory(size));
            }
        } catch (OutOfMemoryError full) {
            // the limit is reached
        }
    }
}
