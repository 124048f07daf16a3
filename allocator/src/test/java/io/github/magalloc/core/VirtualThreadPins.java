package io.github.magalloc.core;

import io.github.magalloc.VirtualThreadsForTests;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records, while a test's body runs, the virtual threads pinned to their carriers ({@code jdk.VirtualThreadPinned})
 * and the classes loaded ({@code jdk.ClassLoad}), every one with its stack, and checks that no magalloc frame was on
 * a pinned stack, nor on a virtual thread's stack when it loaded a class. The loads are checked as well as the pins
 * because a pin is recorded only when a pinned thread waits, which depends on what other threads do at that moment: a
 * class loader's class is loaded from native code, so the loading virtual thread is pinned, and it waits, still
 * pinned, on the loader's lock for the class's name when another thread loads the same class then; the JDK
 * customizing a method handle makes a hidden class, and was seen pinned on a lock of its own. The boot loader's named
 * classes do not count: the JVM loads them without a Java frame to pin (and the recording itself has the JDK load
 * some of its own classes on whatever thread is running). Neither pins nor loads count inside Netty's cleaner, which
 * is Netty's. A control pin, a virtual thread that parks in a class initializer, shows that the recording sees
 * pinning at all.
 */
final class VirtualThreadPins {
    private static final String PINNED = "jdk.VirtualThreadPinned";
    private static final String CLASS_LOAD = "jdk.ClassLoad";
    /** Where the allocator's own classes come from. */
    private static final URL ALLOCATOR_CODE = MemoryPool.class.getProtectionDomain().getCodeSource().getLocation();
    /** Whether a class, by name, is the allocator's own; filled as frames are looked at. */
    private static final Map<String, Boolean> ALLOCATOR_FRAMES = new ConcurrentHashMap<>();
    /** The bottom frame of every virtual thread's stack. */
    private static final String VIRTUAL_THREAD_RUN = "java.lang.VirtualThread.run";

    interface Body {
        void run() throws Exception;
    }

    /**
     * One recorded event: its type, the class it loaded and whether that load counts (class loads only), and its
     * stack, top frame first.
     */
    private record Event(String type, String loadedClass, boolean loadCounts, List<String> frames) {
        boolean onVirtualThread() {
            return frames.contains(VIRTUAL_THREAD_RUN);
        }
    }

    private VirtualThreadPins() {
    }

    /**
     * Runs {@code body} under the recording and fails if a pinned virtual thread's stack was in the allocator's own
     * code ({@link #inAllocatorCode}), or if a virtual thread of {@code testClass}'s tasks (a frame of it on the
     * stack) loaded or made a class that counts while in that code. Only the test's own tasks for the loads: other
     * tests running meanwhile make first uses in an order that no run fixes.
     */
    static void assertNoAllocatorFramePinnedDuring(Class<?> testClass, Body body) throws Exception {
        List<Event> events = eventsDuring(body);
        List<Event> pins = events.stream().filter(e -> e.type.equals(PINNED)).collect(Collectors.toList());
        assertThat(pins).as("the control pin, which shows the recording sees pinning")
            .anySatisfy(pin -> assertThat(pin.frames).anyMatch(f -> f.contains(PinsWhenInitialized.class.getName())));
        List<String> allocatorLoads = events.stream()
            .filter(e -> e.type.equals(CLASS_LOAD) && e.loadCounts && e.onVirtualThread()
                && e.frames.stream().anyMatch(f -> f.startsWith(testClass.getName())) && inAllocatorCode(e))
            .map(e -> e.loadedClass + " loaded from " + e.frames)
            .collect(Collectors.toList());
        assertThat(allocatorLoads).as("the classes loaded or made by virtual threads in a magalloc frame, each pinned"
            + " while it does (ClassesLoadedAhead loads classes with the first pool; DirectCallers calls methods found"
            + " by name without a method handle)").isEmpty();
        List<List<String>> allocatorPins = pins.stream()
            .filter(VirtualThreadPins::inAllocatorCode)
            .map(Event::frames)
            .collect(Collectors.toList());
        assertThat(allocatorPins).as("the stacks of virtual threads pinned in a magalloc frame").isEmpty();
    }

    /**
     * Whether a frame of the allocator's code was on the stack, outside Netty's cleaner (its direct memory's
     * allocation and free): Netty's own method handles there (its native calls on JDK 24+) are customized on the
     * thread that calls them the 128th time, under every allocator alike.
     */
    private static boolean inAllocatorCode(Event event) {
        return event.frames.stream().anyMatch(VirtualThreadPins::isAllocatorFrame)
            && event.frames.stream().noneMatch(f -> f.startsWith("io.netty.util.internal.Cleaner"));
    }

    /**
     * Whether {@code frame} ("class.method") is the allocator's own code: its class comes from where
     * {@link MemoryPool} does (the main classes, not the tests'). A hidden class (a lambda's) is not found by name
     * and does not count; the frame of the method it calls does.
     */
    private static boolean isAllocatorFrame(String frame) {
        if (!frame.startsWith("io.github.magalloc.")) {
            return false;
        }
        String className = frame.substring(0, frame.lastIndexOf('.'));
        return ALLOCATOR_FRAMES.computeIfAbsent(className, VirtualThreadPins::isAllocatorClass);
    }

    private static boolean isAllocatorClass(String className) {
        try {
            Class<?> type = Class.forName(className, false, VirtualThreadPins.class.getClassLoader());
            return type.getProtectionDomain().getCodeSource().getLocation().equals(ALLOCATOR_CODE);
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static List<Event> eventsDuring(Body body) throws Exception {
        Path file = Files.createTempFile("virtual-thread-pinning", ".jfr");
        try {
            try (Recording recording = new Recording()) {
                recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
                recording.enable(CLASS_LOAD).withThreshold(Duration.ZERO).withStackTrace();
                recording.start();
                VirtualThreadsForTests.start(PinsWhenInitialized::initialize).join();
                body.run();
                recording.stop();
                recording.dump(file);
            }
            // Other recordings of this JVM may add their events to the file: only these two types count.
            return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(PINNED)
                    || e.getEventType().getName().equals(CLASS_LOAD))
                .map(VirtualThreadPins::event)
                .collect(Collectors.toList());
        } finally {
            Files.delete(file);
        }
    }

    private static Event event(RecordedEvent event) {
        List<String> frames = new ArrayList<>();
        if (event.getStackTrace() != null) {
            for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                frames.add(frame.getMethod().getType().getName() + "." + frame.getMethod().getName());
            }
        }
        String type = event.getEventType().getName();
        if (!type.equals(CLASS_LOAD)) {
            return new Event(type, "", false, frames);
        }
        RecordedClass loaded = event.getValue("loadedClass");
        boolean byBootLoader = loaded.getClassLoader() == null || loaded.getClassLoader().getType() == null;
        return new Event(type, loaded.getName(), loaded.getBoolean("hidden") || !byBootLoader, frames);
    }

    /** Parks inside its class initializer: a virtual thread that does so is pinned (the recording's control). */
    static final class PinsWhenInitialized {
        static {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }

        static void initialize() {
        }
    }
}
