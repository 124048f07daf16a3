package io.github.magalloc.core;

import io.github.magalloc.VirtualThreadsForTests;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records the virtual threads pinned to their carriers ({@code jdk.VirtualThreadPinned}, every one, with its stack)
 * while a test's body runs, and checks that no magalloc frame was on a pinned stack. A control pin, a virtual thread
 * that parks in a class initializer, shows that the recording sees pinning at all.
 */
final class VirtualThreadPins {
    interface Body {
        void run() throws Exception;
    }

    private VirtualThreadPins() {
    }

    /**
     * Runs {@code body} under the recording and fails if a pinned virtual thread's stack had a magalloc frame other
     * than the test's own ({@code testClass}, whose tasks call the allocator).
     */
    static void assertNoAllocatorFramePinnedDuring(Class<?> testClass, Body body) throws Exception {
        List<List<String>> pins = pinnedStacksDuring(body);
        assertThat(pins).as("the control pin, which shows the recording sees pinning")
            .anySatisfy(stack -> assertThat(stack).anyMatch(f -> f.contains(PinsWhenInitialized.class.getName())));
        List<List<String>> allocatorPins = pins.stream()
            .filter(stack -> stack.stream().anyMatch(f -> f.startsWith("io.github.magalloc.")
                && !f.startsWith(testClass.getName()) && !f.startsWith(VirtualThreadPins.class.getName())))
            .collect(Collectors.toList());
        assertThat(allocatorPins).as("the stacks of virtual threads pinned in a magalloc frame").isEmpty();
    }

    private static List<List<String>> pinnedStacksDuring(Body body) throws Exception {
        Path file = Files.createTempFile("virtual-thread-pinning", ".jfr");
        try {
            try (Recording recording = new Recording()) {
                recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
                recording.start();
                VirtualThreadsForTests.start(PinsWhenInitialized::initialize).join();
                body.run();
                recording.stop();
                recording.dump(file);
            }
            // Other recordings of this JVM may add their events to the file: only pins count.
            return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned"))
                .map(VirtualThreadPins::frames)
                .collect(Collectors.toList());
        } finally {
            Files.delete(file);
        }
    }

    private static List<String> frames(RecordedEvent event) {
        List<String> frames = new ArrayList<>();
        if (event.getStackTrace() != null) {
            for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                frames.add(frame.getMethod().getType().getName() + "." + frame.getMethod().getName());
            }
        }
        return frames;
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
