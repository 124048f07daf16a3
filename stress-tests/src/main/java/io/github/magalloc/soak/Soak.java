package io.github.magalloc.soak;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.workload.Rss;
import io.github.magalloc.workload.SizeDistribution;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The soak test (docs/reliability.md). Producer threads, event-loop ({@code FastThreadLocalThread}s that get a
 * magazine of their own) and plain (shared magazines, some attached), allocate heap and direct buffers with
 * SOCKET_PROXY and API_GATEWAY sizes, fill each with a pattern derived from its memory and a generation number,
 * register its memory range and the buffer object itself, and hand it to random consumers. Consumers check the pattern, then release it, pass
 * it on, slice or duplicate it (retain), grow it, or hold it for a while. Producers die while their buffers live
 * on (normally, interrupted, or "killed" by an exception); {@code trim()} runs all the time. A quarter of the
 * producers use a second allocator in debug mode. Beside them, {@link PeakChecks} runs traffic peaks on event loops
 * on an allocator nobody trims and checks that its used memory settles after each. At the end everything is
 * released and the allocators' metrics are checked, and Netty's leak detector, at PARANOID, must report nothing but
 * a planted canary.
 *
 * <p>{@code java -cp <stress-tests classpath> io.github.magalloc.soak.Soak} with {@code -Dsoak.seconds=60}
 * (default); exits 1 on any failure.
 */
public final class Soak {
    private static final int CONSUMERS = Integer.getInteger("soak.consumers", 4);
    private static final int PRODUCERS = Integer.getInteger("soak.producers", 6);
    private static final int INBOX = 256;
    private static final int MAX_FAILURES = 20;
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(Long.getLong("soak.progressSeconds", 60));

    private final long seconds;
    private final long deadline;
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final MagazineByteBufAllocator debugAllocator = MagazineByteBufAllocator.builder().debug(true).build();
    private final Ledger ledger = new Ledger(this::fail);
    private final List<BlockingQueue<Message>> inboxes = new ArrayList<>();
    /** Buffers whose holder died; released by consumers and, at the end, by the main thread. */
    private final Queue<Message> orphans = new ConcurrentLinkedQueue<>();
    private final Set<Thread> liveProducers = ConcurrentHashMap.newKeySet();
    private final List<String> failures = new ArrayList<>();
    private volatile boolean stopProducers;
    private volatile boolean stopConsumers;

    // Counters for the report, besides the ledger's and the consumers'.
    private final LongAdder handOffs = new LongAdder();
    private final LongAdder trims = new LongAdder();
    /** Largest used memory of the two allocators together (heap + direct), and largest RSS; the main thread's. */
    private long maxUsedBytes;
    private long maxRssBytes = -1;
    private final AtomicInteger producersStarted = new AtomicInteger();
    private final LongAdder diedNormally = new LongAdder();
    private final LongAdder diedInterrupted = new LongAdder();
    private final LongAdder diedKilled = new LongAdder();
    private final LongAdder orphaned = new LongAdder();
    /** What the consumer threads run; it counts their slices, duplicates and grows. */
    private final Consumers consumers = new Consumers(inboxes, orphans, ledger, () -> stopConsumers, this::fail,
        handOffs);

    private Soak(long seconds) {
        this.seconds = seconds;
        this.deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    public static void main(String[] args) throws Exception {
        LeakCounter.install(); // before any ByteBuf class is loaded
        long seconds = Long.getLong("soak.seconds", 60);
        boolean ok = new Soak(seconds).run();
        System.exit(ok ? 0 : 1);
    }

    /** Thrown inside a producer to make it die abruptly while it holds live buffers. */
    private static final class Killed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Killed() {
            super("killed on purpose", null, false, false);
        }
    }

    boolean run() throws InterruptedException {
        long started = System.nanoTime();
        List<Thread> consumerThreads = new ArrayList<>();
        ThreadFactory eventLoops = new DefaultThreadFactory("soak-consumer-loop");
        for (int i = 0; i < CONSUMERS; i++) {
            inboxes.add(new ArrayBlockingQueue<>(INBOX));
        }
        for (int i = 0; i < CONSUMERS; i++) {
            BlockingQueue<Message> inbox = inboxes.get(i);
            Runnable consumer = () -> consumers.consume(inbox);
            Thread t = i % 2 == 0 ? eventLoops.newThread(consumer) : new Thread(consumer, "soak-consumer-" + i);
            t.setUncaughtExceptionHandler((th, e) -> fail("consumer " + th.getName() + " died: " + e));
            t.start();
            consumerThreads.add(t);
        }
        Thread trimmer = new Thread(this::trimAndInterrupt, "soak-trimmer");
        trimmer.start();
        // Stops with the producers (deadline or first failure), after the peak it is checking.
        PeakChecks peakChecks = new PeakChecks(seconds, () -> stopProducers, this::fail);
        Thread peaks = new Thread(peakChecks, "soak-peaks");
        peaks.setUncaughtExceptionHandler((th, e) -> fail("peak checks died: " + e));
        peaks.start();

        List<Thread> producers = new ArrayList<>();
        int generation = 0;
        long nextProgress = System.nanoTime() + PROGRESS_NANOS;
        while (System.nanoTime() < deadline && !failed()) {
            while (liveProducers.size() < PRODUCERS) {
                producers.add(startProducer(generation++));
            }
            Thread.sleep(5);
            producers.removeIf(t -> !t.isAlive());
            sampleMemory();
            if (System.nanoTime() > nextProgress) {
                nextProgress += PROGRESS_NANOS;
                System.out.printf("soak: progress %.0f s: %,d allocations, %,d bytes, %d producers started,"
                        + " %d live ranges, used direct %,d / heap %,d bytes%n",
                    (System.nanoTime() - started) / 1e9, ledger.allocations.sum(), ledger.allocatedBytes.sum(),
                    producersStarted.get(), ledger.liveRanges(), allocator.metric().usedDirectMemory(),
                    allocator.metric().usedHeapMemory());
            }
        }
        stopProducers = true;
        for (Thread t : producers) {
            t.join();
        }
        peaks.join();
        stopConsumers = true;
        for (Thread t : consumerThreads) {
            t.join();
        }
        trimmer.interrupt();
        trimmer.join();

        int leftovers = 0;
        for (BlockingQueue<Message> inbox : inboxes) {
            orphans.addAll(inbox); // passed on to a consumer that had already ended
            inbox.clear();
        }
        Message m;
        while ((m = orphans.poll()) != null) {
            ledger.check(m, "orphan at the end");
            ledger.release(m);
            leftovers++;
        }
        double secondsRun = (System.nanoTime() - started) / 1e9;
        report(secondsRun, leftovers, peakChecks);
        checkEnd();
        LeakCounter.checkCanary(allocator, this::fail);
        synchronized (failures) {
            System.out.println(failures.isEmpty() ? "SOAK PASSED" : "SOAK FAILED: " + failures.size() + " failures");
            for (String f : failures) {
                System.out.println("  " + f);
            }
            return failures.isEmpty();
        }
    }

    // ------------------------------------------------------------------ producers

    private Thread startProducer(int index) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        boolean eventLoop = index % 2 == 0;
        boolean attach = !eventLoop && random.nextBoolean();
        boolean debug = random.nextInt(4) == 0;
        MagazineByteBufAllocator alloc = debug ? debugAllocator : allocator;
        SizeDistribution sizes = random.nextBoolean() ? SizeDistribution.SOCKET_PROXY : SizeDistribution.API_GATEWAY;
        int lifetime = 200 + random.nextInt(20_000);
        Runnable body = () -> produce(alloc, debug, attach, sizes, lifetime);
        String name = "soak-producer-" + index + (eventLoop ? "-loop" : attach ? "-attached" : "-plain")
            + (debug ? "-debug" : "");
        Thread t = eventLoop ? new DefaultThreadFactory(name).newThread(body) : new Thread(body, name);
        t.setUncaughtExceptionHandler((th, e) -> {
            if (e instanceof Killed) {
                diedKilled.increment();
            } else {
                fail("producer " + th.getName() + " died: " + e);
            }
        });
        liveProducers.add(t);
        producersStarted.incrementAndGet();
        t.start();
        return t;
    }

    private void produce(MagazineByteBufAllocator alloc, boolean debug, boolean attach, SizeDistribution sizes,
                         int lifetime) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<Message> kept = new ArrayList<>(); // die holding these
        try {
            if (attach) {
                alloc.attachCurrentThread(); // never detached: the reaper must notice the death
            }
            for (int n = 0; n < lifetime && !stopProducers; n++) {
                Message m = ledger.allocate(alloc, debug, sizes.next(random), random.nextBoolean());
                if (random.nextInt(64) == 0 && kept.size() < 32) {
                    kept.add(m);
                } else if (random.nextInt(20_000) == 0) {
                    kept.add(m);
                    throw new Killed(); // dies mid-run, right after an allocation, holding buffers
                } else {
                    sendOrKeep(m, kept, random);
                }
            }
            diedNormally.increment();
        } catch (InterruptedException e) {
            diedInterrupted.increment();
        } finally {
            orphaned.add(kept.size());
            orphans.addAll(kept);
            liveProducers.remove(Thread.currentThread());
        }
    }

    /** Hands {@code m} to a random consumer; an interrupted producer dies holding it. */
    private void sendOrKeep(Message m, List<Message> kept, ThreadLocalRandom random) throws InterruptedException {
        BlockingQueue<Message> inbox = inboxes.get(random.nextInt(inboxes.size()));
        try {
            while (!inbox.offer(m, 10, TimeUnit.MILLISECONDS)) {
                if (stopProducers) {
                    ledger.release(m);
                    return;
                }
            }
        } catch (InterruptedException e) {
            kept.add(m);
            throw e;
        }
        handOffs.increment();
    }

    // ------------------------------------------------------------------ trims and failures

    private void trimAndInterrupt() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(10 + random.nextInt(90));
                allocator.trim();
                debugAllocator.trim();
                trims.increment();
                if (random.nextInt(16) == 0) {
                    List<Thread> candidates = new ArrayList<>(liveProducers);
                    if (!candidates.isEmpty()) {
                        candidates.get(random.nextInt(candidates.size())).interrupt();
                    }
                }
            }
        } catch (InterruptedException e) {
            // end of the run
        }
    }

    private boolean failed() {
        synchronized (failures) {
            return !failures.isEmpty();
        }
    }

    private void fail(String failure) {
        synchronized (failures) {
            if (failures.size() < MAX_FAILURES) {
                failures.add(failure);
            }
        }
        stopProducers = true;
    }

    // ------------------------------------------------------------------ the end

    /** The main thread, every 5 ms: the largest memory seen, by the allocators' metric and by the process. */
    private void sampleMemory() {
        long used = 0;
        for (MagazineByteBufAllocator a : new MagazineByteBufAllocator[] {allocator, debugAllocator}) {
            used += a.metric().usedDirectMemory() + a.metric().usedHeapMemory();
        }
        maxUsedBytes = Math.max(maxUsedBytes, used);
        maxRssBytes = Math.max(maxRssBytes, Rss.bytes());
    }

    private void report(double secondsRun, int leftovers, PeakChecks peakChecks) {
        System.out.printf("soak: %.1f s, %d producer threads started (died: %d normally, %d interrupted, %d killed;"
                + " %d buffers orphaned), %d consumers, %d peaks of %d MiB checked (longest wait to settle %.2f s)%n",
            secondsRun, producersStarted.get(), diedNormally.sum(), diedInterrupted.sum(), diedKilled.sum(),
            orphaned.sum(), CONSUMERS, peakChecks.checked(), peakChecks.peakBytes() >> 20,
            peakChecks.longestWaitNanos() / 1e9);
        System.out.printf("soak: %,d allocations, %,d bytes allocated, %,d bytes checked, %,d hand-offs, %,d slices,"
                + " %,d duplicates, %,d grows, %,d trims, %,d final releases, %d released at the end,"
                + " peak %d live ranges, %d unlocatable%n",
            ledger.allocations.sum(), ledger.allocatedBytes.sum(), ledger.checkedBytes.sum(), handOffs.sum(),
            consumers.slices.sum(), consumers.duplicates.sum(), consumers.grows.sum(), trims.sum(),
            ledger.finalReleases.sum(), leftovers, ledger.peakLiveRanges(), ledger.unlocatable.sum());
        System.out.printf("soak: largest used memory of the two allocators %,d bytes, largest resident memory %,d bytes"
            + " (peaks' allocator and JVM included; -1 where /proc is not readable)%n", maxUsedBytes, maxRssBytes);
    }

    /**
     * Every buffer is released and every producer and consumer has ended. Before trim(), no ended thread's magazine
     * holds a byte: each gave its chunks back as their last buffers were released. After trim(), which also ends
     * the magazines of dead attached threads nobody noticed yet, nothing at all is held.
     */
    private void checkEnd() {
        ledger.checkAllReleased();
        checkMetrics("allocator", allocator);
        checkMetrics("debug allocator", debugAllocator);
    }

    private void checkMetrics(String name, MagazineByteBufAllocator alloc) {
        MagazineByteBufAllocatorMetric metric = alloc.metric();
        long[] before = new long[2];
        long[] pooledBefore = new long[2];
        long[] endedBefore = new long[2];
        for (int d = 0; d < 2; d++) {
            before[d] = used(metric, d == 1);
            pooledBefore[d] = metric.pooledFreeMemory(d == 1);
            endedBefore[d] = metric.endedThreadsMemory(d == 1);
        }
        alloc.trim();
        for (int d = 0; d < 2; d++) {
            boolean direct = d == 1;
            String kind = name + (direct ? " direct" : " heap");
            long chunks = 0;
            for (int i = 0; i < metric.sizeClassCount(); i++) {
                long active = metric.activeChunks(direct, i);
                chunks += active;
                if (active != 0) {
                    fail(kind + ": " + active + " chunks of size class " + metric.sizeClassSize(i)
                        + " left after every buffer was released and trim()");
                }
            }
            System.out.printf("soak: %s: used %,d bytes before trim (reuse pool %,d, ended threads %,d; %,d thread"
                    + " magazines ended), %,d after trim (%d chunks, reuse pool %,d, huge %,d, thread magazines %d);"
                    + " slabs allocated %,d, freed %,d%n",
                kind, before[d], pooledBefore[d], endedBefore[d], metric.endedThreadMagazines(direct),
                used(metric, direct), chunks, metric.pooledFreeMemory(direct), metric.hugeMemory(direct),
                metric.threadLocalMagazines(direct), metric.slabsAllocated(direct), metric.slabsFreed(direct));
            if (endedBefore[d] != 0) {
                fail(kind + ": ended threads' magazines still held " + endedBefore[d] + " bytes after every buffer was"
                    + " released (no trim)");
            }
            if (used(metric, direct) != 0) {
                fail(kind + ": " + used(metric, direct) + " bytes still used after every buffer was released and"
                    + " trim()");
            }
            if (metric.threadLocalMagazines(direct) != 0) {
                fail(kind + ": " + metric.threadLocalMagazines(direct) + " thread magazines left after all threads"
                    + " ended");
            }
            if (metric.pooledFreeMemory(direct) != 0 || metric.hugeMemory(direct) != 0) {
                fail(kind + ": reuse pool or huge memory not empty after trim");
            }
        }
    }

    private static long used(MagazineByteBufAllocatorMetric metric, boolean direct) {
        return direct ? metric.usedDirectMemory() : metric.usedHeapMemory();
    }
}
