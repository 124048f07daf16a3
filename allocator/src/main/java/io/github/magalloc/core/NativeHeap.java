package io.github.magalloc.core;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Array;
import java.util.Locale;
import java.util.Optional;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The C allocator's heap beneath the JVM, where direct memory comes from, and the one thing magalloc asks of it:
 * give its free memory back to the system.
 *
 * <p>Why it is needed: glibc serves blocks below its mmap threshold (128 KiB at first, raised to the size of each
 * mapped block freed, up to 32 MiB) from its arenas, and keeps what is freed there for the process, releasing
 * only the top of an arena. A direct slab that magalloc frees therefore leaves the process's resident set only when
 * glibc is asked to trim ({@code malloc_trim}, which releases every free page of every arena).
 *
 * <p>How, decided at the first trim on the thread that runs it, and said once in Netty's debug log:
 * <ol>
 *   <li>not at all where the JVM trims the C heap itself ({@code -XX:TrimNativeHeapInterval} above 0): two
 *       trimmers would only double the work;</li>
 *   <li>{@code malloc_trim(0)} called directly through the foreign function API, on JDK 22+ where native access is
 *       enabled for magalloc's module ({@code --enable-native-access=ALL-UNNAMED} on the class path): no more than
 *       the call;</li>
 *   <li>else the JVM's diagnostic command {@code System.trim_native_heap} (JDK 17.0.9+, 21.0.1+, 22+) through the
 *       {@code DiagnosticCommand} MBean. Its first use creates the JVM's platform MBean server, which registers every
 *       platform MXBean (the logging one included, which initializes {@code java.util.logging}); about 150-190 ms of
 *       CPU once, on the background thread. On other C libraries the command answers that it is not available.</li>
 * </ol>
 * Where none works, every later call returns at once.
 */
final class NativeHeap {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(NativeHeap.class);
    private static final String DIAGNOSTIC_COMMAND = "com.sun.management:type=DiagnosticCommand";
    private static final String TRIM_OPERATION = "systemTrimNativeHeap";
    /** How the command's answer starts when it trimmed ("Trim native heap: RSS+Swap: 1753M->1167M (-585M)"). */
    private static final String TRIMMED = "Trim native heap";

    /**
     * What {@link #trim} answers when it did not trim now but will be able to later: the first trim by command
     * needs direct memory of the JDK's (it reads the container's cgroup files through temporary direct buffers while
     * it makes the MBean server), and the direct memory limit had no room for it.
     */
    static final String POSTPONED = "postponed: no direct memory for the MBean server's first use";
    /**
     * Direct memory the first trim by command may take for the JDK's temporary buffers (8 KiB a file read, a few at
     * once): reserved against the limit first ({@link DirectMemoryLimit}), so that no thread of magalloc's takes it
     * meanwhile, and the JDK never waits for memory on magalloc's background thread.
     */
    static final long FIRST_COMMAND_HEADROOM = 256 * 1024;

    /** The way chosen at the first trim; null before it. Written and read by the trimming thread. */
    private static Trimmer trimmer;
    /** Whether the MBean server has been made (by a trim, or by anyone): later trims by command need no headroom. */
    private static boolean mbeanServerMade;

    private NativeHeap() {
    }

    /** One way to trim: returns what happened, or null where it cannot trim (it is then not asked again). */
    private interface Trimmer {
        String trim();
    }

    private static final Trimmer UNAVAILABLE = () -> null;

    /**
     * Asks the C allocator to give its free pages back to the system; returns what was done, {@link #POSTPONED} if it
     * cannot now (try later), or null where it cannot at all (then all later calls return null at once). Blocks for as
     * long as the trim takes (about 0.1 ms with little to give back, a few ms for hundreds of MiB): never call it on an
     * event loop.
     */
    static synchronized String trim() {
        if (trimmer == null) {
            trimmer = choose();
        }
        String done = trimmer.trim();
        if (done == null) {
            trimmer = UNAVAILABLE;
        }
        return done;
    }

    /** The way this JVM trims, or {@link #UNAVAILABLE}; see the class comment for the order. */
    static Trimmer choose() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
            return unavailable("not Linux", null);
        }
        long jvmInterval = JvmTrimmer.intervalMillis();
        if (jvmInterval > 0) {
            return unavailable("the JVM trims the C heap itself (-XX:TrimNativeHeapInterval=" + jvmInterval + ")",
                null);
        }
        MethodHandle mallocTrim = MallocTrim.find();
        if (mallocTrim != null) {
            logger.debug("magalloc: trimming the C heap with malloc_trim through the foreign function API");
            return () -> MallocTrim.trim(mallocTrim);
        }
        return NativeHeap::trimByDiagnosticCommand;
    }

    private static String trimByDiagnosticCommand() {
        if (mbeanServerMade) {
            return trimByDiagnosticCommandNow();
        }
        if (!DirectMemoryLimit.JVM.tryReserve(FIRST_COMMAND_HEADROOM)) {
            return POSTPONED;
        }
        try {
            String done = trimByDiagnosticCommandNow();
            mbeanServerMade = true;
            return done;
        } catch (OutOfMemoryError e) {
            // Another user of direct memory took the room between the reservation and the JDK's own buffers.
            return POSTPONED;
        } finally {
            DirectMemoryLimit.JVM.endReservation(FIRST_COMMAND_HEADROOM);
        }
    }

    private static String trimByDiagnosticCommandNow() {
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

    private static Trimmer unavailable(String why, Throwable cause) {
        disable(why, cause);
        return UNAVAILABLE;
    }

    private static void disable(String why, Throwable cause) {
        logger.debug("magalloc: not trimming the C heap after freeing direct memory: {}", why, cause);
    }

    /**
     * The JVM's own periodic trimmer, read through the HotSpot diagnostic MXBean (which creates no MBean server). 0
     * where it is off, or where it cannot be read (no such flag, no {@code jdk.management} module).
     */
    private static final class JvmTrimmer {
        static long intervalMillis() {
            try {
                return Long.parseLong(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .getVMOption("TrimNativeHeapInterval").getValue());
            } catch (RuntimeException | LinkageError e) {
                return 0;
            }
        }
    }

    /**
     * glibc's {@code int malloc_trim(size_t pad)}, linked through the foreign function API of JDK 22+ by reflection
     * (the sources are compiled for JDK 17), only where native access is enabled for this module: elsewhere the call
     * would print the JDK's warning about restricted methods (or, in a later JDK, fail).
     */
    private static final class MallocTrim {
        static MethodHandle find() {
            if (Runtime.version().feature() < 22
                || !DirectMemoryRelease.isNativeAccessEnabled(NativeHeap.class.getModule())) {
                return null;
            }
            try {
                Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
                Class<?> lookupType = Class.forName("java.lang.foreign.SymbolLookup");
                Class<?> segmentType = Class.forName("java.lang.foreign.MemorySegment");
                Class<?> layoutType = Class.forName("java.lang.foreign.MemoryLayout");
                Class<?> descriptorType = Class.forName("java.lang.foreign.FunctionDescriptor");
                Class<?> optionType = Class.forName("java.lang.foreign.Linker$Option");
                Class<?> valueLayoutType = Class.forName("java.lang.foreign.ValueLayout");
                Object linker = linkerType.getMethod("nativeLinker").invoke(null);
                Object lookup = linkerType.getMethod("defaultLookup").invoke(linker);
                Optional<?> symbol = (Optional<?>) lookupType.getMethod("find", String.class).invoke(lookup,
                    "malloc_trim");
                if (symbol.isEmpty()) {
                    return null; // not glibc
                }
                Object intLayout = valueLayoutType.getField("JAVA_INT").get(null);
                Object longLayout = valueLayoutType.getField("JAVA_LONG").get(null);
                Object arguments = Array.newInstance(layoutType, 1);
                Array.set(arguments, 0, longLayout);
                Object descriptor = descriptorType.getMethod("of", layoutType, arguments.getClass())
                    .invoke(null, intLayout, arguments);
                return (MethodHandle) linkerType.getMethod("downcallHandle", segmentType, descriptorType,
                        Array.newInstance(optionType, 0).getClass())
                    .invoke(linker, symbol.get(), descriptor, Array.newInstance(optionType, 0));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                logger.debug("magalloc: malloc_trim cannot be linked through the foreign function API", e);
                return null;
            }
        }

        static String trim(MethodHandle mallocTrim) {
            try {
                int released = (int) mallocTrim.invokeExact(0L);
                return "malloc_trim: " + (released != 0 ? "memory released" : "nothing to release");
            } catch (Throwable e) {
                disable("malloc_trim failed", e);
                return null;
            }
        }
    }

    /**
     * The only code that names {@code java.management}'s MBean server, loaded at the first trim by command: in a runtime
     * image without that module, loading it fails there (a {@link LinkageError} the trim catches), not where the pool
     * is made.
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
}
