package io.github.magalloc.churn;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.workload.TaskThread;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Thread churn against one long-lived allocator, as a server with short-lived workers sees it: plain producer
 * threads and event-loop producers come and go; each allocates buffers of mixed sizes, releases some itself and
 * hands the rest to long-lived consumers (plain and event-loop), which keep them a while, retain slices of some,
 * and release them, mostly after the producer has died. Then everything is released, no {@code trim()} is called,
 * and the allocator's used memory is read.
 *
 * <p>An event-loop producer or consumer runs as the only task of its own event executor, which ends its thread
 * when the task is done, as an event loop group that shuts down does ({@link TaskThread#onOwnEventExecutor}: on a
 * bare {@code FastThreadLocalThread} Netty 4.2's adaptive allocator would use its shared magazines).
 *
 * <p>Run as a program it measures magalloc, Netty's adaptive and Netty's pooled allocator one after the other with
 * the same seed and prints a table:
 * <pre>java -cp stress-tests/target/jcstress.jar io.github.magalloc.churn.ThreadChurn [plainProducers] [loopProducers] [buffersPerProducer]</pre>
 */
public final class ThreadChurn {
    /** What to run. */
    public static final class Config {
        final int plainProducers;
        final int loopProducers;
        final int buffersPerProducer;
        /** Producers alive at once. */
        final int concurrentProducers;
        /** Buffers each consumer holds before releasing the oldest: they outlive their producers. */
        final int consumerWindow;
        final long seed;

        public Config(int plainProducers, int loopProducers, int buffersPerProducer, int concurrentProducers,
                      int consumerWindow, long seed) {
            this.plainProducers = plainProducers;
            this.loopProducers = loopProducers;
            this.buffersPerProducer = buffersPerProducer;
            this.concurrentProducers = concurrentProducers;
            this.consumerWindow = consumerWindow;
            this.seed = seed;
        }
    }

    /** What one run measured, after every buffer was released. */
    public static final class Result {
        public final long usedHeap;
        public final long usedDirect;
        public final long buffers;
        public final long releasedAfterProducerDied;
        public final long millis;

        Result(long usedHeap, long usedDirect, long buffers, long releasedAfterProducerDied, long millis) {
            this.usedHeap = usedHeap;
            this.usedDirect = usedDirect;
            this.buffers = buffers;
            this.releasedAfterProducerDied = releasedAfterProducerDied;
            this.millis = millis;
        }

        public long usedTotal() {
            return usedHeap + usedDirect;
        }
    }

    private static final int CONSUMERS_PER_KIND = 2;

    private final ByteBufAllocator alloc;
    private final Config config;
    private final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
    private final AtomicLong buffers = new AtomicLong();
    private final AtomicLong releasedAfterProducerDied = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean producersDone;

    private ThreadChurn(ByteBufAllocator alloc, Config config) {
        this.alloc = alloc;
        this.config = config;
    }

    /** Runs the churn on {@code alloc}; throws whatever a producer or consumer threw. */
    public static Result run(ByteBufAllocator alloc, Config config) throws Exception {
        return new ThreadChurn(alloc, config).run();
    }

    /** A buffer in flight, and whether the thread that allocated it has died. */
    private static final class Item {
        final ByteBuf buf;
        final Producer producer;

        Item(ByteBuf buf, Producer producer) {
            this.buf = buf;
            this.producer = producer;
        }
    }

    private static final class Producer {
        volatile boolean dead;
    }

    private Result run() throws Exception {
        long start = System.nanoTime();
        List<TaskThread> consumers = new ArrayList<>();
        DefaultThreadFactory loopThreads = new DefaultThreadFactory("churn-loop");
        for (int i = 0; i < CONSUMERS_PER_KIND; i++) {
            consumers.add(TaskThread.plain(this::consume, "churn-consumer-" + i));
            consumers.add(TaskThread.onOwnEventExecutor(this::consume, loopThreads));
        }

        SplittableRandom random = new SplittableRandom(config.seed);
        Semaphore slots = new Semaphore(config.concurrentProducers);
        List<TaskThread> producers = new ArrayList<>();
        int total = config.plainProducers + config.loopProducers;
        for (int i = 0; i < total && failure.get() == null; i++) {
            // Spreads the event-loop producers evenly among the plain ones.
            boolean eventLoop = (i + 1L) * config.loopProducers / total > (long) i * config.loopProducers / total;
            SplittableRandom producerRandom = random.split();
            slots.acquire();
            Runnable body = () -> {
                try {
                    produce(producerRandom);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    slots.release();
                }
            };
            producers.add(eventLoop ? TaskThread.onOwnEventExecutor(body, loopThreads)
                : TaskThread.plain(body, "churn-plain-" + i));
            if (producers.size() >= 64) {
                joinAll(producers);
            }
        }
        joinAll(producers);
        producersDone = true;
        joinAll(consumers);
        Throwable t = failure.get();
        if (t instanceof Exception) {
            throw (Exception) t;
        }
        if (t != null) {
            throw new AssertionError(t);
        }
        ByteBufAllocatorMetric metric = ((ByteBufAllocatorMetricProvider) alloc).metric();
        return new Result(metric.usedHeapMemory(), metric.usedDirectMemory(), buffers.get(),
            releasedAfterProducerDied.get(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static void joinAll(List<TaskThread> threads) throws InterruptedException {
        for (TaskThread t : threads) {
            t.awaitEnd();
        }
        threads.clear();
    }

    private void produce(SplittableRandom random) {
        Producer me = new Producer();
        for (int i = 0; i < config.buffersPerProducer; i++) {
            int size = size(random);
            ByteBuf buf = random.nextBoolean() ? alloc.directBuffer(size) : alloc.heapBuffer(size);
            buffers.incrementAndGet();
            buf.writeLong(i).writeZero(Math.min(buf.writableBytes(), 24));
            if (random.nextInt(5) == 0) {
                buf.release();
            } else {
                queue.add(new Item(buf, me));
            }
        }
        me.dead = true; // from here on, every release of this producer's buffers is after its death
    }

    /** Mostly small, some large, a few above the pooling limits of both allocators. */
    private static int size(SplittableRandom random) {
        int r = random.nextInt(1000);
        if (r < 800) {
            return 16 + random.nextInt(2048);
        }
        if (r < 980) {
            return 2048 + random.nextInt(30 * 1024);
        }
        if (r < 999) {
            return 32 * 1024 + random.nextInt(200 * 1024);
        }
        return 2 * 1024 * 1024;
    }

    private void consume() {
        ArrayDeque<Item> window = new ArrayDeque<>();
        SplittableRandom random = new SplittableRandom(Thread.currentThread().getId());
        try {
            while (true) {
                Item item = queue.poll(1, TimeUnit.MILLISECONDS);
                if (item == null) {
                    if (producersDone && queue.isEmpty()) {
                        break;
                    }
                    continue;
                }
                if (random.nextInt(5) == 0) {
                    // A retained slice outlives the buffer's own release: the slice's release is the last one.
                    ByteBuf slice = item.buf.retainedSlice(0, 8);
                    item.buf.release();
                    window.add(new Item(slice, item.producer));
                } else {
                    window.add(item);
                }
                if (window.size() > config.consumerWindow) {
                    release(window.poll());
                }
            }
            while (!window.isEmpty()) {
                release(window.poll());
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
            window.forEach(i -> i.buf.release());
        }
    }

    private void release(Item item) {
        boolean afterDeath = item.producer.dead;
        if (!item.buf.release()) {
            throw new AssertionError("the last release of " + item.buf + " returned false");
        }
        if (afterDeath) {
            releasedAfterProducerDied.incrementAndGet();
        }
    }

    public static void main(String[] args) throws Exception {
        int plain = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int loops = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        int perProducer = args.length > 2 ? Integer.parseInt(args[2]) : 500;
        Config config = new Config(plain, loops, perProducer, 8, 4000, 42);
        System.out.printf(Locale.ROOT, "%d plain and %d event-loop producers, %d buffers each, JDK %s%n",
            plain, loops, perProducer, System.getProperty("java.version"));
        System.out.println("| allocator | used heap | used direct | total | buffers | released after producer died | seconds |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        measure("magalloc", () -> MagazineByteBufAllocator.builder().build(), config);
        measure("Netty adaptive", () -> new AdaptiveByteBufAllocator(), config);
        measure("Netty pooled", () -> new PooledByteBufAllocator(true), config);
    }

    private static void measure(String name, Supplier<ByteBufAllocator> allocators, Config config) throws Exception {
        ByteBufAllocator alloc = allocators.get();
        Result r = run(alloc, config);
        String extra = "";
        if (alloc instanceof MagazineByteBufAllocator) {
            MagazineByteBufAllocatorMetric m = ((MagazineByteBufAllocator) alloc).metric();
            extra = String.format(Locale.ROOT, " (pooled free %s + %s, ended threads %s + %s)",
                mib(m.pooledFreeMemory(false)), mib(m.pooledFreeMemory(true)),
                mib(m.endedThreadsMemory(false)), mib(m.endedThreadsMemory(true)));
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %,d | %,d | %.1f |%s%n", name, mib(r.usedHeap),
            mib(r.usedDirect), mib(r.usedTotal()), r.buffers, r.releasedAfterProducerDied, r.millis / 1000.0, extra);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
