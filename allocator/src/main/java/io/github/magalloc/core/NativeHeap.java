package io.github.magalloc.core;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The C allocator's heap beneath the JVM, where direct memory comes from, and the one thing magalloc asks of it:
 * give its free memory back to the system.
 *
 * <p>Why it is needed: glibc serves blocks below its mmap threshold (128 KiB at first, raised to the size of each
 * mapped block freed, up to 32 MiB) from its arenas, and keeps what is freed there for the process, releasing
 * only the top of an arena. A direct slab that magalloc frees therefore leaves the process's resident set only when
 * glibc is asked to trim ({@code malloc_trim}, which releases every free page of every arena). The JVM offers that
 * as the diagnostic command {@code System.trim_native_heap} (JDK 17.0.9+, 21.0.1+, 22+), reached from Java through
 * the {@code DiagnosticCommand} MBean; on other C libraries the command answers that it is not available.
 *
 * <p>Decided at the first trim, on the thread that runs it: where the command is missing or not available, every
 * later call returns at once, and it says so once in Netty's debug log.
 */
final class NativeHeap {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(NativeHeap.class);
    private static final String DIAGNOSTIC_COMMAND = "com.sun.management:type=DiagnosticCommand";
    private static final String TRIM_OPERATION = "systemTrimNativeHeap";
    /** How the command's answer starts when it trimmed ("Trim native heap: RSS+Swap: 1753M->1167M (-585M)"). */
    private static final String TRIMMED = "Trim native heap";

    /** False once the command proved missing or not available here; written and read by the trimming thread. */
    private static volatile boolean available = isLinux();

    private NativeHeap() {
    }

    private static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");
    }

    /**
     * Asks the C allocator to give its free pages back to the system; returns the command's answer, or null where
     * it cannot (then all later calls return null at once). Blocks for as long as the trim takes (about 0.1 ms
     * with little to give back, a few ms for hundreds of MiB): never call it on an event loop.
     */
    static synchronized String trim() {
        if (!available) {
            return null;
        }
        try {
            String text = DiagnosticCommand.trimNativeHeap();
            if (text.startsWith(TRIMMED)) {
                return text;
            }
            disable("the JVM answered: " + text, null);
        } catch (LinkageError e) {
            disable("the runtime has no java.management module", e);
        } catch (RuntimeException e) {
            disable("the JVM has no System.trim_native_heap (JDK 17.0.9+, 21.0.1+, 22+)", e);
        }
        return null;
    }

    /**
     * The only code that names {@code java.management}'s classes, loaded at the first trim: in a runtime image
     * without that module, loading it fails there (a {@link LinkageError} the trim catches), not where the pool is
     * made.
     */
    private static final class DiagnosticCommand {
        static String trimNativeHeap() {
            try {
                Object answer = ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName(DIAGNOSTIC_COMMAND),
                    TRIM_OPERATION, new Object[] {null}, new String[] {String[].class.getName()});
                return String.valueOf(answer).trim();
            } catch (JMException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static void disable(String why, Throwable cause) {
        available = false;
        logger.debug("magalloc: not trimming the C heap after freeing direct memory: {}", why, cause);
    }
}
