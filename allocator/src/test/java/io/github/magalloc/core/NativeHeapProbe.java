package io.github.magalloc.core;

import javax.management.MBeanServerFactory;

/**
 * Run in a JVM of its own by {@link NativeHeapRoutesTest}: trims the C heap once as magalloc's background thread does
 * and prints what the trim answered ({@code null} where this JVM does not trim) and how many MBean servers exist
 * after it.
 */
public final class NativeHeapProbe {
    private NativeHeapProbe() {
    }

    public static void main(String[] args) {
        String answer = NativeHeap.trim();
        System.out.println("TRIM\t" + answer + "\tMBEAN_SERVERS\t" + MBeanServerFactory.findMBeanServer(null).size());
    }
}
