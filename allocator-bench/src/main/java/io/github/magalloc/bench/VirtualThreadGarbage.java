package io.github.magalloc.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.github.magalloc.workload.AllocatorKind;
import io.github.magalloc.workload.VirtualThreadRequests;
import io.netty.buffer.ByteBufAllocator;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.ThreadFactory;

/**
 * Where the heap bytes of a request on a virtual thread of its own go: runs {@link VirtualThreadRequests} (the
 * VirtualThread benchmark's task, direct buffers) and counts every object that a round of tasks allocates, by class
 * and by whose code allocated it. JMH's {@code gc.alloc.rate.norm} gives only the sum; this tells the allocator's
 * objects from the virtual thread's and the task's, whose sizes the JIT sets: the JDK copies a task's frames into a
 * heap object when it yields, and their size depends on how the JIT compiled the task, the allocator's code inlined
 * into it included.
 *
 * <p>Exact, not sampled: with thread-local allocation buffers the flight recorder sees one allocation per buffer
 * refill, so the JVM must run with {@code -XX:-UseTLAB}, which makes every allocation an
 * {@code jdk.ObjectAllocationOutsideTLAB} event with its class, size and stack. Allocation is slower then, so threads
 * that share a lock wait for it more often than in the benchmark, and a virtual thread that waits long enough
 * unmounts, which the JDK pays for with another copy of its frames: such copies are counted where the waiting code
 * is.
 *
 * <p>Usage: {@code java -XX:-UseTLAB -cp benchmarks.jar io.github.magalloc.bench.VirtualThreadGarbage ALLOCATOR
 * [WARM_ROUNDS [TASKS]]}, ALLOCATOR one of {@link AllocatorKind} or {@code NONE} (the task alone, no buffers);
 * 10 warm-up rounds of 100,000 tasks and 20,000 counted tasks unless given. JDK 21+.
 */
public final class VirtualThreadGarbage {
    /** Whose code allocated an object: the first frame, from the top of its stack, outside the JDK. */
    enum Owner {
        /** The task and the code that starts its virtual thread: the workload module. */
        TASK,
        /** Netty's and magalloc's code. */
        ALLOCATOR,
        /** This class: starting the recording (the JDK instruments event classes then). Not a task's. */
        MEASUREMENT,
        /** JDK frames only: the virtual threads' scheduler and the JDK's own threads. */
        JDK
    }

    /** Classes below this many bytes per task are summed into one row per owner. */
    private static final double SHOWN_BYTES_PER_TASK = 0.5;
    private static final long MARGIN_MILLIS = 50;

    private VirtualThreadGarbage() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 3) {
            exitWithUsage("expected 1 to 3 arguments, got " + args.length);
        }
        ThreadFactory threads = VirtualThreadRequests.virtualThreads().orElse(null);
        if (threads == null) {
            System.err.println(VirtualThreadRequests.unavailableReason());
            System.exit(2);
        }
        if (tlabsOn()) {
            System.err.println("run with -XX:-UseTLAB: with thread-local allocation buffers the flight recorder sees "
                + "only a sample of the allocations, and the counts would not be exact");
            System.exit(2);
        }
        String kind = args[0].toUpperCase(Locale.ROOT);
        ByteBufAllocator allocator = kind.equals("NONE") ? null : allocatorOf(kind);
        int warmRounds = args.length > 1 ? atLeast(0, "WARM_ROUNDS", args[1]) : 10;
        int tasks = args.length > 2 ? atLeast(1, "TASKS", args[2]) : 20_000;

        VirtualThreadRequests requests = new VirtualThreadRequests(allocator, true,
            VirtualThreadRequests.DEFAULT_CONCURRENCY, threads);
        for (int i = 0; i < warmRounds; i++) {
            requests.runRound(VirtualThreadRequests.DEFAULT_TASKS);
        }
        print(kind, warmRounds, tasks, record(requests, tasks));
    }

    /**
     * Counts the allocations of {@code tasks} tasks, run under a recording of every allocation. The same number of
     * tasks runs just before them, uncounted, under the same recording: starting a recording takes long enough
     * for a pool to give back the memory its last wave left (what the allocators do after a pause, not per
     * request), and it instruments the recorder's event classes.
     */
    private static Map<Owner, Map<String, long[]>> record(VirtualThreadRequests requests, int tasks)
            throws IOException, InterruptedException {
        Path file = Files.createTempFile("virtual-thread-garbage", ".jfr");
        try {
            Instant countFrom;
            try (Recording recording = new Recording()) {
                recording.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
                recording.start();
                requests.runRound(tasks);
                // The recorder's clock and Instant.now() may differ by a few milliseconds: a margin on each side
                // of the mark, far shorter than any pool's decay.
                Thread.sleep(MARGIN_MILLIS);
                countFrom = Instant.now();
                Thread.sleep(MARGIN_MILLIS);
                requests.runRound(tasks);
                recording.stop();
                recording.dump(file);
            }
            return count(file, countFrom);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static ByteBufAllocator allocatorOf(String kind) {
        try {
            return AllocatorKind.valueOf(kind).create(true);
        } catch (IllegalArgumentException e) {
            exitWithUsage("unknown allocator " + kind);
            return null;
        }
    }

    /** {@code value} as a whole number of at least {@code least}; else exits with the usage. */
    private static int atLeast(int least, String name, String value) {
        try {
            int number = Integer.parseInt(value);
            if (number >= least) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        exitWithUsage(name + " must be a whole number of at least " + least + ": " + value);
        return least;
    }

    private static void exitWithUsage(String problem) {
        StringJoiner allocators = new StringJoiner("|", "", "|NONE");
        for (AllocatorKind kind : AllocatorKind.values()) {
            allocators.add(kind.name());
        }
        System.err.println(problem + "\nusage: java -XX:-UseTLAB -cp benchmarks.jar "
            + VirtualThreadGarbage.class.getName() + " " + allocators + " [WARM_ROUNDS [TASKS]]");
        System.exit(2);
    }

    private static boolean tlabsOn() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return Boolean.parseBoolean(vm.getVMOption("UseTLAB").getValue());
    }

    /** Objects and bytes per owner and class, of the allocations at {@code from} or later. */
    private static Map<Owner, Map<String, long[]>> count(Path file, Instant from) throws IOException {
        Map<Owner, Map<String, long[]>> counts = new EnumMap<>(Owner.class);
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (event.getStartTime().isBefore(from)) {
                continue;
            }
            long[] objectsAndBytes = counts.computeIfAbsent(ownerOf(event), o -> new TreeMap<>())
                .computeIfAbsent(event.getClass("objectClass").getName(), c -> new long[2]);
            objectsAndBytes[0]++;
            objectsAndBytes[1] += event.getLong("allocationSize");
        }
        return counts;
    }

    private static Owner ownerOf(RecordedEvent event) {
        List<String> frameTypes = new ArrayList<>();
        if (event.getStackTrace() != null) {
            for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                frameTypes.add(frame.getMethod().getType().getName());
            }
        }
        return ownerOf(frameTypes);
    }

    /** The owner of an allocation whose stack has frames of these classes, the top (the allocating) first. */
    static Owner ownerOf(List<String> frameTypes) {
        for (String type : frameTypes) {
            if (type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.")) {
                continue;
            }
            if (type.startsWith("io.github.magalloc.workload.")) {
                return Owner.TASK;
            }
            if (type.startsWith("io.github.magalloc.bench.")) {
                return Owner.MEASUREMENT;
            }
            return Owner.ALLOCATOR;
        }
        return Owner.JDK;
    }

    /** Bytes per task by owner, each with its classes of at least {@link #SHOWN_BYTES_PER_TASK}. */
    private static void print(String kind, int warmRounds, int tasks, Map<Owner, Map<String, long[]>> counts) {
        System.out.printf(Locale.ROOT, "%s: heap allocations of %,d tasks after %d warm-up rounds of %,d; %s %s%n%n",
            kind, tasks, warmRounds, VirtualThreadRequests.DEFAULT_TASKS, System.getProperty("java.vm.name"),
            System.getProperty("java.version"));
        System.out.printf(Locale.ROOT, "%-12s %-72s %12s %10s%n", "owner", "class", "objects/task", "B/task");
        double tasksOwn = 0;
        for (Owner owner : Owner.values()) {
            Map<String, long[]> classes = counts.getOrDefault(owner, Map.of());
            long bytes = 0;
            long otherBytes = 0;
            for (Map.Entry<String, long[]> c : classes.entrySet()) {
                bytes += c.getValue()[1];
                double perTask = (double) c.getValue()[1] / tasks;
                if (perTask >= SHOWN_BYTES_PER_TASK) {
                    System.out.printf(Locale.ROOT, "%-12s %-72s %12.3f %10.1f%n", owner, c.getKey(),
                        (double) c.getValue()[0] / tasks, perTask);
                } else {
                    otherBytes += c.getValue()[1];
                }
            }
            if (otherBytes > 0) {
                System.out.printf(Locale.ROOT, "%-12s %-72s %12s %10.1f%n", owner, "(other classes)", "",
                    (double) otherBytes / tasks);
            }
            double perTask = (double) bytes / tasks;
            System.out.printf(Locale.ROOT, "%-12s %-72s %12s %10.1f%n%n", owner, "total", "", perTask);
            if (owner != Owner.MEASUREMENT) {
                tasksOwn += perTask;
            }
        }
        System.out.printf(Locale.ROOT, "B/task, all but the measurement's: %.1f%n", tasksOwn);
    }
}
