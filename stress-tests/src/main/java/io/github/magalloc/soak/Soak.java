package io.github.magalloc.soak;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.workload.Rss;
import io.github.magalloc.workload.SizeDistribution;
import io.netty.buffer.ByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
    private static final int MAX_HELD = 64;
    private static final int MAX_GROWN = 2 << 20;
    private static final int MAX_FAILURES = 20;
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(Long.getLong("soak.progressSeconds", 60));

    private final long seconds;
    private final long deadline;
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final MagazineByteBufAllocator debugAllocator = MagazineByteBufAllocator.builder().debug(true).build();
    private final LiveRanges ranges = new LiveRanges();
    private final LiveObjects objects = new LiveObjects();
    private final List<BlockingQueue<Message>> inboxes = new ArrayList<>();
    /** Buffers whose holder died; released by consumers and, at the end, by the main thread. */
    private final Queue<Message> orphans = new ConcurrentLinkedQueue<>();
    private final Set<Thread> liveProducers = ConcurrentHashMap.newKeySet();
    private final AtomicLong generations = new AtomicLong();
    private final List<String> failures = new ArrayList<>();
    private volatile boolean stopProducers;
    private volatile boolean stopConsumers;

    // Counters for the report.
    private final LongAdder allocations = new LongAdder();
    private final LongAdder allocatedBytes = new LongAdder();
    private final LongAdder checkedBytes = new LongAdder();
    private final LongAdder finalReleases = new LongAdder();
    private final LongAdder deallocations = new LongAdder();
    private final LongAdder handOffs = new LongAdder();
    private final LongAdder slices = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder grows = new LongAdder();
    private final LongAdder trims = new LongAdder();
    /** Largest used memory of the two allocators together (heap + direct), and largest RSS; the main thread's. */
    private long maxUsedBytes;
    private long maxRssBytes = -1;
    private final LongAdder unlocatable = new LongAdder();
    private final AtomicInteger producersStarted = new AtomicInteger();
    private final LongAdder diedNormally = new LongAdder();
    private final LongAdder diedInterrupted = new LongAdder();
    private final LongAdder diedKilled = new LongAdder();
    private final LongAdder orphaned = new LongAdder();
    private static final LongAdder LEAKS = new LongAdder();

    private Soak(long seconds) {
        this.seconds = seconds;
        this.deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    public static void main(String[] args) throws Exception {
        installLeakCounter(); // before any ByteBuf class is loaded
        long seconds = Long.getLong("soak.seconds", 60);
        boolean ok = new Soak(seconds).run();
        System.exit(ok ? 0 : 1);
    }

    /** One allocation, shared by every holder of a view of it. */
    private static final class Allocation {
        final ByteBuf root;
        final long seed;
        final boolean debug;
        /** Holders of a reference (views out there); the last one unregisters the range before releasing. */
        final AtomicInteger holders = new AtomicInteger(1);
        /** Set by the release that returned true: the one that deallocated. */
        final AtomicBoolean deallocated = new AtomicBoolean();
        LiveRanges.Range range;

        Allocation(ByteBuf root, long seed, boolean debug) {
            this.root = root;
            this.seed = seed;
            this.debug = debug;
        }
    }

    /** A view (the buffer itself, a slice or a duplicate) that one holder owns one reference of. */
    private static final class Message {
        final Allocation allocation;
        final ByteBuf view;
        /** Index in the allocation of the view's index 0. */
        final int offset;

        Message(Allocation allocation, ByteBuf view, int offset) {
            this.allocation = allocation;
            this.view = view;
            this.offset = offset;
        }
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
        List<Thread> consumers = new ArrayList<>();
        ThreadFactory eventLoops = new DefaultThreadFactory("soak-consumer-loop");
        for (int i = 0; i < CONSUMERS; i++) {
            inboxes.add(new ArrayBlockingQueue<>(INBOX));
        }
        for (int i = 0; i < CONSUMERS; i++) {
            BlockingQueue<Message> inbox = inboxes.get(i);
            Runnable consumer = () -> consume(inbox);
            Thread t = i % 2 == 0 ? eventLoops.newThread(consumer) : new Thread(consumer, "soak-consumer-" + i);
            t.setUncaughtExceptionHandler((th, e) -> fail("consumer " + th.getName() + " died: " + e));
            t.start();
            consumers.add(t);
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
                    (System.nanoTime() - started) / 1e9, allocations.sum(), allocatedBytes.sum(),
                    producersStarted.get(), ranges.size(), allocator.metric().usedDirectMemory(),
                    allocator.metric().usedHeapMemory());
            }
        }
        stopProducers = true;
        for (Thread t : producers) {
            t.join();
        }
        peaks.join();
        stopConsumers = true;
        for (Thread t : consumers) {
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
            check(m, "orphan at the end");
            release(m);
            leftovers++;
        }
        double secondsRun = (System.nanoTime() - started) / 1e9;
        report(secondsRun, leftovers, peakChecks);
        checkEnd();
        checkLeaks();
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
                Message m = allocate(alloc, debug, sizes.next(random), random.nextBoolean());
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

    private Message allocate(MagazineByteBufAllocator alloc, boolean debug, int size, boolean direct) {
        boolean wasInterrupted = Thread.currentThread().isInterrupted();
        ByteBuf buf = direct ? alloc.directBuffer(size) : alloc.heapBuffer(size);
        if (wasInterrupted && !Thread.currentThread().isInterrupted()) {
            fail("allocation cleared the interrupt status of " + Thread.currentThread().getName());
        }
        if (buf.capacity() != size || buf.refCnt() != 1 || buf.writerIndex() != 0) {
            fail("fresh buffer " + buf + " for " + size + " bytes");
        }
        long key = LiveRanges.locatable(buf) ? LiveRanges.start(buf) : 0;
        Allocation a = new Allocation(buf, DataPattern.seed(generations.incrementAndGet(), key), debug);
        DataPattern.fill(buf, a.seed, 0, size);
        buf.writerIndex(size);
        register(a, Thread.currentThread().getName());
        String twice = objects.add(buf, Thread.currentThread().getName());
        if (twice != null) {
            fail("OBJECT IN TWO HANDS: " + twice);
        }
        allocations.increment();
        allocatedBytes.add(size);
        return new Message(a, buf, 0);
    }

    /** Hands {@code m} to a random consumer; an interrupted producer dies holding it. */
    private void sendOrKeep(Message m, List<Message> kept, ThreadLocalRandom random) throws InterruptedException {
        BlockingQueue<Message> inbox = inboxes.get(random.nextInt(inboxes.size()));
        try {
            while (!inbox.offer(m, 10, TimeUnit.MILLISECONDS)) {
                if (stopProducers) {
                    release(m);
                    return;
                }
            }
        } catch (InterruptedException e) {
            kept.add(m);
            throw e;
        }
        handOffs.increment();
    }

    // ------------------------------------------------------------------ consumers

    private void consume(BlockingQueue<Message> inbox) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<Message> held = new ArrayList<>();
        try {
            while (true) {
                Message m = inbox.poll(2, TimeUnit.MILLISECONDS);
                if (m == null) {
                    if (stopConsumers && inbox.isEmpty()) {
                        break;
                    }
                    if (!held.isEmpty()) {
                        Message old = held.remove(random.nextInt(held.size()));
                        check(old, "held");
                        release(old);
                    }
                    continue;
                }
                check(m, "received");
                act(m, held, random);
                if (random.nextInt(16) == 0) {
                    Message orphan = orphans.poll();
                    if (orphan != null) {
                        check(orphan, "orphan");
                        release(orphan);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            orphans.addAll(held); // consumers end holding live buffers too
        }
    }

    private void act(Message m, List<Message> held, ThreadLocalRandom random) throws InterruptedException {
        Allocation a = m.allocation;
        int choice = random.nextInt(100);
        boolean whole = m.view == a.root;
        if (choice < 50) {
            release(m);
        } else if (choice < 65) {
            passOn(m, random);
        } else if (choice < 73 && whole && a.root.capacity() >= 16) {
            // A slice at an 8-aligned offset, passed on; the holder keeps its own reference.
            int capacity = a.root.capacity();
            int from = random.nextInt(capacity / 8) * 8;
            int length = 1 + random.nextInt(capacity - from);
            a.holders.incrementAndGet();
            passOn(new Message(a, a.root.retainedSlice(from, length), from), random);
            slices.increment();
            keep(m, held, random);
        } else if (choice < 80) {
            a.holders.incrementAndGet();
            keep(new Message(a, m.view.retainedDuplicate(), m.offset), held, random);
            duplicates.increment();
            passOn(m, random);
        } else if (choice < 88 && whole && a.holders.get() == 1) {
            grow(a, random);
            passOn(m, random);
        } else {
            keep(m, held, random);
        }
    }

    private void keep(Message m, List<Message> held, ThreadLocalRandom random) {
        if (held.size() >= MAX_HELD) {
            Message old = held.set(random.nextInt(held.size()), m);
            check(old, "held");
            release(old);
        } else {
            held.add(m);
        }
    }

    private void passOn(Message m, ThreadLocalRandom random) {
        BlockingQueue<Message> inbox = inboxes.get(random.nextInt(inboxes.size()));
        if (inbox.offer(m)) {
            handOffs.increment();
        } else {
            release(m);
        }
    }

    /** Sole holder only: grows in place or moves; the old bytes must survive, the new ones get the pattern. */
    private void grow(Allocation a, ThreadLocalRandom random) {
        ByteBuf root = a.root;
        int old = root.capacity();
        int wanted = Math.min(MAX_GROWN, old + 1 + random.nextInt(Math.max(1, old)));
        if (wanted <= old) {
            return;
        }
        if (a.range != null) {
            ranges.remove(a.range); // the old memory may be freed and reused by the move
        }
        root.capacity(wanted);
        int bad = DataPattern.check(root, 0, a.seed, old);
        if (bad >= 0) {
            fail("grow from " + old + " to " + wanted + " lost byte " + bad + " of " + a.range);
        }
        DataPattern.fill(root, a.seed, old, wanted);
        root.writerIndex(wanted);
        register(a, Thread.currentThread().getName() + " (grown)");
        grows.increment();
    }

    // ------------------------------------------------------------------ checks and release

    private void register(Allocation a, String owner) {
        if (!LiveRanges.locatable(a.root)) {
            unlocatable.increment();
            return;
        }
        LiveRanges.Range range = LiveRanges.rangeOf(a.root, owner + (a.debug ? " debug" : ""));
        String overlap = ranges.add(range);
        if (overlap != null) {
            fail("OVERLAP: " + overlap);
            return;
        }
        a.range = range;
    }

    private void check(Message m, String where) {
        int length = m.view.capacity();
        int bad = DataPattern.check(m.view, m.offset, m.allocation.seed, length);
        if (bad >= 0) {
            fail("pattern broken (" + where + ") at byte " + (m.offset + bad) + " of " + m.allocation.range
                + ": 0x" + Integer.toHexString(m.view.getByte(bad) & 0xff));
        }
        checkedBytes.add(length);
    }

    /**
     * Releases the holder's reference. The holder that drops the count of holders to 0 unregisters range and object
     * first; which release deallocates depends on the order of the release() calls themselves (another holder may
     * still be between its own count and its release), so what must hold is: exactly one release of each allocation
     * returns true.
     */
    private void release(Message m) {
        Allocation a = m.allocation;
        boolean last = a.holders.decrementAndGet() == 0;
        if (last) {
            if (a.range != null) {
                ranges.remove(a.range);
            }
            String problem = objects.remove(a.root);
            if (problem != null) {
                fail(problem);
            }
            finalReleases.increment();
        }
        if (m.view.release()) {
            deallocations.increment();
            if (!a.deallocated.compareAndSet(false, true)) {
                fail("a second release() of " + m.view + " returned true: deallocated twice");
            }
        }
    }

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
            allocations.sum(), allocatedBytes.sum(), checkedBytes.sum(), handOffs.sum(), slices.sum(),
            duplicates.sum(), grows.sum(), trims.sum(), finalReleases.sum(), leftovers, ranges.peak(),
            unlocatable.sum());
        System.out.printf("soak: largest used memory of the two allocators %,d bytes, largest resident memory %,d bytes"
            + " (peaks' allocator and JVM included; -1 where /proc is not readable)%n", maxUsedBytes, maxRssBytes);
    }

    /**
     * Every buffer is released and every producer and consumer has ended. Before trim(), no ended thread's magazine
     * holds a byte: each gave its chunks back as their last buffers were released. After trim(), which also ends
     * the magazines of dead attached threads nobody noticed yet, nothing at all is held.
     */
    private void checkEnd() {
        if (ranges.size() != 0) {
            fail(ranges.size() + " buffers still registered at the end");
        }
        if (objects.size() != 0) {
            fail(objects.size() + " buffer objects still registered at the end");
        }
        if (finalReleases.sum() != allocations.sum() || deallocations.sum() != allocations.sum()) {
            fail(allocations.sum() + " allocations but " + finalReleases.sum() + " last holders and "
                + deallocations.sum() + " releases that returned true");
        }
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

    /**
     * Leak detection runs at PARANOID for the whole run. A canary buffer is leaked on purpose at the end to show
     * the detector works here: exactly one leak must be reported.
     */
    private void checkLeaks() throws InterruptedException {
        MagazineByteBufAllocator canaryAllocator = new MagazineByteBufAllocator(false);
        canaryAllocator.heapBuffer(64).writeLong(42); // dropped without release: the canary
        for (int i = 0; i < 20 && LEAKS.sum() == 0; i++) {
            System.gc();
            Thread.sleep(50);
            allocator.heapBuffer(8).release(); // the detector looks for collected buffers when it tracks one
        }
        System.out.println("soak: leak detector (PARANOID) reported " + LEAKS.sum() + " leak(s); 1 expected (canary)");
        if (LEAKS.sum() != 1) {
            fail(LEAKS.sum() == 0 ? "the leak detector missed the canary: leak detection not working"
                : (LEAKS.sum() - 1) + " buffers leaked");
        }
    }

    private static void installLeakCounter() {
        // Every buffer tracked; access records on retain/release only (a stack trace per getLong would make
        // the soak a benchmark of the leak detector).
        System.setProperty("io.netty.leakDetection.acquireAndReleaseOnly", "true");
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            // The abstract method a factory must implement; Netty 4.2 deprecates it with no abstract replacement.
            @SuppressWarnings("deprecation")
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval) {
                    @Override
                    protected boolean needReport() {
                        return true;
                    }

                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        LEAKS.increment();
                        System.out.println("soak: LEAK " + resourceType + records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.increment();
                        System.out.println("soak: LEAK " + resourceType);
                    }
                };
            }
        });
    }
}
