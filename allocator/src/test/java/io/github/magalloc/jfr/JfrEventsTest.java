package io.github.magalloc.jfr;

import io.github.magalloc.core.SizeClasses;
import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultThreadFactory;
import jdk.jfr.Configuration;
import jdk.jfr.Enabled;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The flight-recorder events: a recording of a short run that takes every slow path, read back from the file.
 * Runs in its own surefire execution (allocator/pom.xml) with {@code -XX:MaxDirectMemorySize=16m}, so that direct
 * memory can be exhausted, and with no other test emitting events at the same time. One test at a time: events a
 * recording enables reach every recording running then.
 */
@Execution(ExecutionMode.SAME_THREAD)
class JfrEventsTest {
    private static final int SMALL = 1024;
    private static final int SMALL_CLASS = SizeClasses.indexOf(SMALL);
    /** Above the size classes, below the pooling limit: a large chunk. */
    private static final int LARGE = 100 * 1024;
    /** Above the pooling limit (1 MiB by default): a huge buffer with a slab of its own. */
    private static final int HUGE = 2 << 20;
    private static final long MAX_DIRECT = 16 << 20;
    private static final List<String> ALL_EVENTS = List.of(
        "magalloc.SlabAllocated", "magalloc.SlabFreed", "magalloc.ChunkActivated", "magalloc.ChunkRetired",
        "magalloc.ReusePoolTake", "magalloc.MemoryExhausted", "magalloc.Trim", "magalloc.MagazineCreated",
        "magalloc.MagazineEnded", "magalloc.SizeClassRequests");

    @BeforeAll
    static void jfrIsThere() {
        // A runtime without JFR would record nothing and every assertion below would fail for the wrong reason.
        assertThat(JfrEvents.available()).as("the runtime has the jdk.jfr module").isTrue();
        assertThat(FlightRecorder.isAvailable()).as("Java Flight Recorder is available in this JVM").isTrue();
        assertThat(MagazineByteBufAllocator.DEFAULT.config().maxPooledSize()).isLessThan(HUGE);
    }

    @Test
    void everySlowPathIsRecordedWithItsFields(@TempDir Path dir) throws Exception {
        // Before the recording starts, as in a server where someone starts one later (jcmd JFR.start): the event
        // classes are loaded before the recording exists.
        MagazineByteBufAllocator before = MagazineByteBufAllocator.builder().build();
        before.directBuffer(SMALL).release();
        before.trim();

        // A reuse budget above the direct memory limit: everything released is pooled, so that exhaustion can be
        // relieved by freeing the pool.
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().reuseBudgetBytes(64 << 20).build();
        Path file = dir.resolve("magalloc.jfr");
        Thread eventLoop;
        Thread attached;
        // The settings file docs/observability.md tells users to record with.
        try (Recording recording = new Recording(Configuration.create(Path.of("..", "docs", "magalloc.jfc")))) {
            // The periodic event once more when the recording ends, rather than every 10 s.
            recording.enable("magalloc.SizeClassRequests").with("period", "endChunk");
            recording.start();
            eventLoop = eventLoopThatEndsHoldingOneBuffer(alloc);
            reuseFromTheSharedMagazines(alloc);
            largeAndHuge(alloc);
            attached = attachedThreadThatDies(alloc);
            alloc.trim();
            exhaustDirectMemory(alloc);
            alloc.trim();
            recording.stop();
            recording.dump(file);
        }
        assertThat(alloc.metric().usedDirectMemory()).isZero();

        Map<String, List<RecordedEvent>> events = RecordingFile.readAllEvents(file).stream()
            .filter(e -> e.getEventType().getName().startsWith("magalloc."))
            .filter(e -> e.getInt("allocatorId") == alloc.hashCode())
            .collect(Collectors.groupingBy(e -> e.getEventType().getName(), TreeMap::new, Collectors.toList()));
        assertThat(events.keySet()).containsExactlyInAnyOrderElementsOf(ALL_EVENTS);

        int smallChunk = SizeClasses.firstChunkSizeOf(SMALL_CLASS);
        assertThat(events.get("magalloc.SizeClassRequests"))
            .anySatisfy(e -> {
                assertThat(e.getBoolean("direct")).isTrue();
                assertThat(e.getInt("sizeClass")).isEqualTo(SMALL_CLASS);
                assertThat(e.getInt("segmentSize")).isEqualTo(SMALL);
                assertThat(e.getLong("allocations")).isPositive();
                assertThat(e.getLong("requestedBytes")).isEqualTo(e.getLong("allocations") * SMALL);
                assertThat(e.getLong("handedOutBytes")).isEqualTo(e.getLong("allocations") * SMALL);
            });
        assertThat(events.get("magalloc.SlabAllocated"))
            .anySatisfy(e -> {
                assertThat(e.getBoolean("direct")).isTrue();
                assertThat(e.getBoolean("pooled")).isTrue();
                assertThat(e.getInt("size")).isEqualTo(smallChunk);
                assertThat(e.getLong("used")).isGreaterThanOrEqualTo(smallChunk);
                assertThat(e.getLong("address")).isNotZero();
            })
            .anySatisfy(e -> {
                assertThat(e.getBoolean("pooled")).isFalse();
                assertThat(e.getInt("size")).isEqualTo(HUGE);
            });
        assertThat(events.get("magalloc.SlabFreed"))
            .anySatisfy(e -> {
                assertThat(e.getBoolean("pooled")).isFalse();
                assertThat(e.getInt("size")).isEqualTo(HUGE);
            })
            .anySatisfy(e -> assertThat(e.getBoolean("pooled")).isTrue())
            .anySatisfy(e -> assertThat(e.getLong("used")).isZero());

        assertThat(events.get("magalloc.ChunkActivated"))
            .allSatisfy(e -> {
                assertThat(e.getInt("segmentSize")).isEqualTo(SizeClasses.sizeOf(e.getInt("sizeClass")));
                assertThat(e.getInt("segmentCount")).isEqualTo(e.getInt("chunkSize") / e.getInt("segmentSize"));
                assertThat(e.getLong("activeChunks")).isPositive();
            })
            .anySatisfy(e -> {
                assertThat(e.getInt("sizeClass")).isEqualTo(SMALL_CLASS);
                assertThat(e.getBoolean("threadLocal")).isTrue();
                assertThat(e.getBoolean("reused")).isFalse();
                assertThat(threadName(e)).startsWith("jfr-loop");
            })
            .anySatisfy(e -> {
                assertThat(e.getBoolean("threadLocal")).isFalse();
                assertThat(e.getBoolean("reused")).isTrue();
            });
        assertThat(events.get("magalloc.ChunkRetired"))
            .anySatisfy(e -> {
                assertThat(e.getInt("sizeClass")).isEqualTo(SMALL_CLASS);
                assertThat(e.getInt("segmentSize")).isEqualTo(SMALL);
                assertThat(e.getBoolean("pooled")).isTrue();
            });

        assertThat(events.get("magalloc.ReusePoolTake"))
            .anySatisfy(e -> {
                assertThat(e.getString("result")).isEqualTo("miss");
                assertThat(e.getInt("sizeClass")).isEqualTo(SMALL_CLASS);
                assertThat(e.getInt("slabSize")).isZero();
            })
            .anySatisfy(e -> {
                assertThat(e.getString("result")).isEqualTo("chunk");
                assertThat(e.getInt("sizeClass")).isEqualTo(SMALL_CLASS);
                assertThat(e.getInt("slabSize")).isEqualTo(smallChunk);
            })
            .anySatisfy(e -> {
                assertThat(e.getString("result")).isEqualTo("slab");
                assertThat(e.getInt("sizeClass")).isEqualTo(SizeClasses.indexOf(2 * SMALL));
                assertThat(e.getInt("segmentSize")).isEqualTo(2 * SMALL);
            })
            .anySatisfy(e -> {
                assertThat(e.getInt("sizeClass")).isEqualTo(-1);
                assertThat(e.getInt("segmentSize")).isZero();
            });

        assertThat(events.get("magalloc.MemoryExhausted"))
            .allSatisfy(e -> {
                assertThat(e.getBoolean("direct")).isTrue();
                assertThat(e.getLong("limit")).isEqualTo(MAX_DIRECT);
                // The limit said beforehand that the slab would not fit: the JDK was never asked, so never refused.
                assertThat(e.getString("firstError")).isNull();
                assertThat(e.getDuration("makingRoom")).isPositive();
                assertThat(e.getInt("unanswered")).isZero();
            })
            .anySatisfy(e -> {
                assertThat(e.getBoolean("recovered")).isFalse();
                assertThat(e.getLong("used")).isPositive();
            })
            .anySatisfy(e -> {
                assertThat(e.getBoolean("recovered")).isTrue();
                assertThat(e.getInt("requested")).isEqualTo(HUGE);
                assertThat(e.getLong("freedBytes")).isPositive();
            });

        assertThat(events.get("magalloc.Trim"))
            .anySatisfy(e -> assertThat(e.getBoolean("direct")).isFalse())
            .anySatisfy(e -> {
                assertThat(e.getBoolean("direct")).isTrue();
                assertThat(e.getInt("reapedMagazines")).isEqualTo(1);
                assertThat(e.getLong("freedBytes")).isPositive();
            })
            .anySatisfy(e -> {
                assertThat(e.getBoolean("direct")).isTrue();
                assertThat(e.getLong("used")).isZero();
            });

        assertThat(events.get("magalloc.MagazineCreated"))
            .anySatisfy(e -> {
                assertThat(e.getBoolean("direct")).isTrue();
                assertThat(threadName(e)).isEqualTo(eventLoop.getName());
                assertThat(e.getInt("threadMagazines")).isEqualTo(1);
            })
            .anySatisfy(e -> assertThat(threadName(e)).isEqualTo(attached.getName()));
        List<RecordedEvent> ended = events.get("magalloc.MagazineEnded").stream()
            .filter(e -> e.getBoolean("direct")).collect(Collectors.toList());
        assertThat(ended)
            .anySatisfy(e -> {
                assertThat(ownerName(e)).isEqualTo(eventLoop.getName());
                assertThat(e.getLong("ownerThreadId")).isEqualTo(eventLoop.getId());
                assertThat(threadName(e)).as("ended by its own thread, on exit").isEqualTo(eventLoop.getName());
                assertThat(e.getBoolean("reaped")).isFalse();
                assertThat(e.getLong("heldBytes")).isGreaterThanOrEqualTo(smallChunk);
                // The buffer it left behind keeps one chunk; the others went back at once.
                assertThat(e.getInt("stillHeldChunks")).isEqualTo(1);
                assertThat(e.getLong("stillHeldBytes")).isEqualTo(SizeClasses.chunkSizeOf(SMALL_CLASS));
                assertThat(e.getLong("endedThreadsMemory")).isEqualTo(e.getLong("stillHeldBytes"));
            })
            .anySatisfy(e -> {
                assertThat(ownerName(e)).isEqualTo(attached.getName());
                assertThat(e.getLong("ownerThreadId")).isEqualTo(attached.getId());
                assertThat(e.getBoolean("reaped")).as("found dead by trim()").isTrue();
                assertThat(threadName(e)).isEqualTo(Thread.currentThread().getName());
            });
    }

    /**
     * What a recording with the JDK's own settings ({@code -XX:StartFlightRecording} without settings, or
     * {@code jcmd JFR.start}) gets without asking: only the rare events.
     */
    @Test
    void theJdkSettingsRecordOnlyTheRareEvents(@TempDir Path dir) throws Exception {
        MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
        Path file = dir.resolve("default.jfr");
        try (Recording recording = new Recording(Configuration.getConfiguration("default"))) {
            recording.start();
            runToEnd(new DefaultThreadFactory("jfr-default").newThread(
                () -> releaseAll(allocate(alloc, SMALL, 2 * segmentsPerChunk()))));
            releaseAll(allocate(alloc, HUGE, 1));
            alloc.trim();
            recording.stop();
            recording.dump(file);
        }
        Set<String> recorded = RecordingFile.readAllEvents(file).stream()
            .filter(e -> e.getEventType().getName().startsWith("magalloc."))
            .filter(e -> e.getInt("allocatorId") == alloc.hashCode())
            .map(e -> e.getEventType().getName())
            .collect(Collectors.toSet());
        assertThat(recorded).containsExactlyInAnyOrder("magalloc.Trim", "magalloc.MagazineCreated",
            "magalloc.MagazineEnded");
        // Not triggered here (it needs exhausted memory); on by default like the three above.
        assertThat(MemoryExhaustedEvent.class.getAnnotation(Enabled.class).value()).isTrue();
    }

    /**
     * A runtime image without the jdk.jfr module (jlink): the allocator must work and load no event class. Runs
     * {@link WithoutJfr} in a JVM started with {@code --limit-modules}, which hides jdk.jfr as such an image would.
     */
    @Test
    void withoutTheJfrModuleNoEventClassIsLoaded() throws Exception {
        String javaCommand = ProcessHandle.current().info().command().orElseThrow();
        Process child = new ProcessBuilder(javaCommand, "--limit-modules", "java.base,java.logging,jdk.unsupported",
            "-verbose:class", "-cp", System.getProperty("java.class.path"), WithoutJfr.class.getName())
            .redirectErrorStream(true)
            .start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("io.github.magalloc.jfr.JfrEvents ").contains("every slow path taken")
            .doesNotContainPattern("io\\.github\\.magalloc\\.jfr\\.(\\w+Event|JfrPoolEvents) ");
    }

    /** Takes every slow path the recorded run takes; see {@link #withoutTheJfrModuleNoEventClassIsLoaded}. */
    static final class WithoutJfr {
        public static void main(String[] args) throws Exception {
            if (JfrEvents.available()) {
                throw new AssertionError("jdk.jfr is visible");
            }
            MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
            eventLoopThatEndsHoldingOneBuffer(alloc);
            reuseFromTheSharedMagazines(alloc);
            largeAndHuge(alloc);
            attachedThreadThatDies(alloc);
            alloc.heapBuffer(SMALL).release();
            alloc.trim();
            if (alloc.metric().usedDirectMemory() != 0 || alloc.metric().usedHeapMemory() != 0) {
                throw new AssertionError(alloc.metric().toString());
            }
            System.out.println("every slow path taken");
        }
    }

    // ------------------------------------------------------------------ the run

    /**
     * An event loop allocates four chunks' worth of small buffers and releases all but one before it exits: a
     * thread magazine created, chunks activated and retired into the reuse pool, and the magazine ended on exit
     * with one chunk still held. The test thread then releases the last buffer, which retires that chunk too.
     */
    private static Thread eventLoopThatEndsHoldingOneBuffer(MagazineByteBufAllocator alloc) throws Exception {
        AtomicReference<ByteBuf> leftBehind = new AtomicReference<>();
        Thread loop = runToEnd(new DefaultThreadFactory("jfr-loop").newThread(() -> {
            List<ByteBuf> buffers = allocate(alloc, SMALL, 4 * segmentsPerChunk());
            leftBehind.set(buffers.remove(buffers.size() - 1));
            releaseAll(buffers);
        }));
        assertThat(alloc.metric().endedThreadsMemory(true)).isPositive();
        assertThat(leftBehind.get().release()).isTrue();
        assertThat(alloc.metric().endedThreadsMemory(true)).isZero();
        return loop;
    }

    /**
     * The test thread uses the shared magazines: its small buffers come from chunks pooled by the event loop
     * (reuse hits, whole chunks), and buffers of twice the size from a pooled chunk's slab cut anew.
     */
    private static void reuseFromTheSharedMagazines(MagazineByteBufAllocator alloc) {
        assertThat(alloc.metric().pooledFreeMemory(true)).isGreaterThanOrEqualTo(2L * segmentsPerChunk() * SMALL);
        releaseAll(allocate(alloc, SMALL, 1));
        releaseAll(allocate(alloc, 2 * SMALL, 1));
    }

    /** A large chunk (a reuse-pool look-up for size class -1) and a huge buffer's own slab, allocated and freed. */
    private static void largeAndHuge(MagazineByteBufAllocator alloc) {
        releaseAll(allocate(alloc, LARGE, 1));
        releaseAll(allocate(alloc, HUGE, 1));
    }

    /** A plain thread that attaches itself and dies without detaching: trim() finds its magazine and ends it. */
    private static Thread attachedThreadThatDies(MagazineByteBufAllocator alloc) throws Exception {
        return runToEnd(new Thread(() -> {
            alloc.attachCurrentThread();
            releaseAll(allocate(alloc, SMALL, 10));
        }, "jfr-attached"));
    }

    /**
     * Fills direct memory until the system says no (an exhaustion the retry cannot relieve: the pool is empty after
     * trim()), releases it all into the reuse pool, then asks for a huge buffer: the first try fails, the retry
     * after freeing the pool succeeds.
     */
    private static void exhaustDirectMemory(MagazineByteBufAllocator alloc) {
        List<ByteBuf> held = new ArrayList<>();
        assertThatThrownBy(() -> {
            for (int i = 0; i < 1_000_000; i++) {
                held.add(alloc.directBuffer(SMALL));
            }
        }).isInstanceOf(OutOfMemoryError.class).hasMessageContaining("magalloc: cannot allocate");
        releaseAll(held);
        assertThat(alloc.metric().pooledFreeMemory(true)).isGreaterThan(MAX_DIRECT / 2);
        releaseAll(allocate(alloc, HUGE, 1));
    }

    // ------------------------------------------------------------------ helpers

    private static int segmentsPerChunk() {
        return SizeClasses.firstChunkSizeOf(SMALL_CLASS) / SMALL;
    }

    private static List<ByteBuf> allocate(MagazineByteBufAllocator alloc, int size, int count) {
        List<ByteBuf> buffers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            buffers.add(alloc.directBuffer(size));
        }
        return buffers;
    }

    private static void releaseAll(List<ByteBuf> buffers) {
        for (ByteBuf buf : buffers) {
            assertThat(buf.release()).isTrue();
        }
        buffers.clear();
    }

    /** Starts {@code thread}, waits for it to end and rethrows what it threw. */
    private static Thread runToEnd(Thread thread) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        thread.setUncaughtExceptionHandler((t, e) -> failure.set(e));
        thread.start();
        thread.join(TimeUnit.MINUTES.toMillis(1));
        assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
        assertThat(failure.get()).as(thread.getName() + " failed").isNull();
        return thread;
    }

    private static String threadName(RecordedEvent event) {
        return event.getThread().getJavaName();
    }

    private static String ownerName(RecordedEvent event) {
        return event.getString("ownerThreadName");
    }
}
