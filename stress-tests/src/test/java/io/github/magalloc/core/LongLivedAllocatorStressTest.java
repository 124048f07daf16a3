package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.workload.VirtualThreadRequests;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The allocator as users run it: one long-lived instance ({@link MagazineByteBufAllocator#DEFAULT}) shared by plain
 * threads, event loops and short-lived threads that come and go, with same-thread and cross-thread releases,
 * copies, retained slices and growth. Every buffer object handed out is registered by identity while it is live:
 * an object handed out while another thread still holds it is the failure this test exists for (a recycled object
 * in two hands). After a thread releases a buffer it allocated itself, it uses the stale reference the way
 * Netty's own tests and careless callers do (count, second release, read): each must fail with
 * {@link IllegalReferenceCountException}, never succeed on a buffer that now belongs to another thread.
 */
class LongLivedAllocatorStressTest {
    /** The run lasts at least this long (more coverage where there is time), and until the work below is done. */
    private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(Long.getLong("longLived.seconds", 8));
    /** The work a run needs, whatever the machine's speed: the run goes on until it is done. */
    private static final long MIN_ALLOCATIONS = 10_000;
    private static final long MIN_STALE_PROBES = 1_000;
    private static final int PLAIN_THREADS = 4;
    private static final int EVENT_LOOPS = 3;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void noBufferObjectIsEverInTwoHands() throws Exception {
        runOn(Thread::new, 1);
    }

    /**
     * The same with the plain and short-lived threads as virtual threads (JDK 21+), the short-lived ones many at a
     * time, as a server runs a request per virtual thread: their objects come from the stripes' shared homes
     * (protocol 5a (virtual threads' objects)), where a running thread's released object must still reach no one
     * else and an ended thread's objects go to the next requests.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void noBufferObjectIsEverInTwoHandsOnVirtualThreads() throws Exception {
        ThreadFactory virtual = VirtualThreadRequests.virtualThreads().orElse(null);
        Assumptions.assumeTrue(virtual != null, VirtualThreadRequests.unavailableReason());
        runOn(virtual, 16);
    }

    /** Plain workers and short-lived threads from {@code threads}, {@code shortLivedAtOnce} of the latter at a time. */
    private static void runOn(ThreadFactory threads, int shortLivedAtOnce) throws Exception {
        Run run = new Run(MagazineByteBufAllocator.DEFAULT);
        DefaultEventExecutorGroup loops = new DefaultEventExecutorGroup(EVENT_LOOPS, new DefaultThreadFactory("stress-loop"));
        List<Thread> plain = new ArrayList<>();
        try {
            for (int i = 0; i < PLAIN_THREADS; i++) {
                long seed = 1000 + i;
                Thread t = threads.newThread(() -> run.plainWorker(seed));
                plain.add(t);
                t.start();
            }
            for (int i = 0; i < EVENT_LOOPS; i++) {
                EventExecutor loop = loops.next();
                long seed = 2000 + i;
                loop.execute(() -> run.loopWorker(loop, seed));
            }
            // Short-lived threads come and go, each leaving buffers for others to release.
            SplittableRandom random = new SplittableRandom(3000);
            while (run.keepsRunning()) {
                List<Thread> wave = new ArrayList<>();
                for (int i = 0; i < shortLivedAtOnce; i++) {
                    SplittableRandom split = random.split();
                    Thread t = threads.newThread(() -> run.shortLivedWorker(split));
                    wave.add(t);
                    t.start();
                }
                for (Thread t : wave) {
                    t.join();
                }
            }
            for (Thread t : plain) {
                t.join();
            }
        } finally {
            loops.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
        run.releaseHandOffs();
        assertThat(run.errors).isEmpty();
        assertThat(run.live).as("buffers still registered after every release").isEmpty();
        assertThat(run.allocations.get()).isGreaterThanOrEqualTo(MIN_ALLOCATIONS);
        assertThat(run.staleProbes.get()).isGreaterThanOrEqualTo(MIN_STALE_PROBES);
    }

    /** State shared by every worker of one run; every failure lands in {@link #errors}, read by the test thread. */
    static final class Run {
        final MagazineByteBufAllocator alloc;
        final long deadline = System.nanoTime() + RUN_NANOS;
        /** Live buffer objects (identity) and the name of the thread that allocated each. */
        final ConcurrentHashMap<Identity, String> live = new ConcurrentHashMap<>();
        /** Buffers handed from one thread to another; whoever takes one becomes its holder. */
        final ConcurrentLinkedQueue<ByteBuf> handOffs = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final AtomicLong allocations = new AtomicLong();
        final AtomicLong staleProbes = new AtomicLong();
        private final AtomicLong tickets = new AtomicLong();

        Run(MagazineByteBufAllocator alloc) {
            this.alloc = alloc;
        }

        /** Until the least run time is over and the work needed is done, or something failed. */
        boolean keepsRunning() {
            boolean workDone = allocations.get() >= MIN_ALLOCATIONS && staleProbes.get() >= MIN_STALE_PROBES;
            return errors.isEmpty() && (System.nanoTime() < deadline || !workDone);
        }

        void plainWorker(long seed) {
            SplittableRandom random = new SplittableRandom(seed);
            try {
                while (keepsRunning()) {
                    step(random);
                }
            } catch (Throwable t) {
                errors.add(t);
            }
        }

        /** Runs a batch of steps, then reschedules itself so the event loop keeps its own thread and magazine. */
        void loopWorker(EventExecutor loop, long seed) {
            SplittableRandom random = new SplittableRandom(seed);
            Runnable batch = new Runnable() {
                @Override
                public void run() {
                    try {
                        for (int i = 0; i < 200; i++) {
                            step(random);
                        }
                    } catch (Throwable t) {
                        errors.add(t);
                        return;
                    }
                    if (keepsRunning()) {
                        loop.execute(this);
                    }
                }
            };
            batch.run();
        }

        void shortLivedWorker(SplittableRandom random) {
            try {
                int steps = 50 + random.nextInt(500);
                for (int i = 0; i < steps; i++) {
                    step(random);
                }
                // Leave a few live buffers behind for other threads to release after this thread has died.
                for (int i = 0; i < 4; i++) {
                    handOffs.add(allocate(random));
                }
            } catch (Throwable t) {
                errors.add(t);
            }
        }

        private void step(SplittableRandom random) {
            int action = random.nextInt(100);
            if (action < 40) {
                sameThreadRelease(allocate(random), random);
            } else if (action < 70) {
                handOffs.add(allocate(random));
            } else {
                ByteBuf received = handOffs.poll();
                if (received != null) {
                    useAndRelease(received, random);
                }
            }
        }

        ByteBuf allocate(SplittableRandom random) {
            int size = size(random);
            ByteBuf buf = random.nextBoolean() ? alloc.directBuffer(size) : alloc.heapBuffer(size);
            register(buf);
            fill(buf, random.nextInt(1 << 20));
            allocations.incrementAndGet();
            return buf;
        }

        private static int size(SplittableRandom random) {
            int r = random.nextInt(1000);
            if (r < 900) {
                return 1 + random.nextInt(2048);
            }
            if (r < 990) {
                return 2048 + random.nextInt(30_000);
            }
            if (r < 999) {
                return 40_000 + random.nextInt(300_000);
            }
            return 1_100_000 + random.nextInt(100_000); // above the pooling limit
        }

        /** Allocated, used and released by one thread, whose stale reference must then behave as released. */
        private void sameThreadRelease(ByteBuf buf, SplittableRandom random) {
            check(buf);
            unregister(buf);
            if (!buf.release()) {
                throw new AssertionError("release() of a count-1 buffer returned false");
            }
            // Other threads allocate meanwhile; none may be given this object while we can still reach it.
            for (int i = random.nextInt(64); i > 0; i--) {
                Thread.onSpinWait();
            }
            probeStale(buf);
        }

        private void probeStale(ByteBuf buf) {
            staleProbes.incrementAndGet();
            int count = buf.refCnt();
            if (count != 0) {
                throw new AssertionError("a buffer released by this thread is live again (refCnt " + count
                    + ") before this thread allocated anything: its object was handed to another thread");
            }
            expectReleased(() -> buf.release(), "second release()");
            expectReleased(() -> buf.getByte(0), "getByte(0)");
        }

        /** Received from another thread: copy it, slice it, grow it, release it. */
        private void useAndRelease(ByteBuf buf, SplittableRandom random) {
            check(buf);
            switch (random.nextInt(4)) {
                case 0: {
                    ByteBuf copy = buf.copy();
                    register(copy);
                    if (!copy.equals(buf)) {
                        throw new AssertionError("copy differs from its source: " + copy + " vs " + buf);
                    }
                    unregister(copy);
                    copy.release();
                    break;
                }
                case 1: {
                    ByteBuf slice = buf.retainedSlice(0, Math.min(8, buf.readableBytes()));
                    if (buf.refCnt() != 2 || slice.getByte(0) != buf.getByte(0)) {
                        throw new AssertionError("retained slice " + slice + " of " + buf);
                    }
                    slice.release();
                    break;
                }
                case 2: {
                    int grown = buf.capacity() + 1 + random.nextInt(4096);
                    if (grown <= buf.maxCapacity()) {
                        int marker = buf.getByte(0);
                        buf.capacity(grown);
                        if (buf.getByte(0) != marker) {
                            throw new AssertionError("growth lost the contents of " + buf);
                        }
                    }
                    break;
                }
                default:
                    break;
            }
            check(buf);
            unregister(buf);
            if (!buf.release()) {
                throw new AssertionError("release() of a count-1 buffer returned false");
            }
        }

        void releaseHandOffs() {
            ByteBuf buf;
            while ((buf = handOffs.poll()) != null) {
                unregister(buf);
                buf.release();
            }
        }

        private void register(ByteBuf buf) {
            String me = Thread.currentThread().toString();
            String holder = live.putIfAbsent(new Identity(StressFixtures.magByteBuf(buf)), me);
            if (holder != null) {
                throw new AssertionError("buffer object handed to " + me + " while " + holder
                    + " still holds it: " + buf);
            }
        }

        private void unregister(ByteBuf buf) {
            if (live.remove(new Identity(StressFixtures.magByteBuf(buf))) == null) {
                throw new AssertionError("releasing a buffer object that is not registered as live: " + buf);
            }
        }

        /** Every byte holds the buffer's ticket; a stranger's write shows up here. */
        private void fill(ByteBuf buf, int salt) {
            byte value = (byte) (tickets.incrementAndGet() * 31 + salt);
            buf.writerIndex(0);
            buf.writeByte(value);
            int n = Math.min(buf.writableBytes(), 64);
            for (int i = 0; i < n; i++) {
                buf.writeByte(value);
            }
        }

        private static void check(ByteBuf buf) {
            if (buf.refCnt() != 1 || buf.readerIndex() != 0 || buf.writerIndex() == 0) {
                throw new AssertionError("live buffer changed by someone else: " + buf + " refCnt " + buf.refCnt());
            }
            byte value = buf.getByte(0);
            for (int i = 1; i < buf.writerIndex(); i++) {
                if (buf.getByte(i) != value) {
                    throw new AssertionError("byte " + i + " of " + buf + " is " + buf.getByte(i) + ", not " + value);
                }
            }
        }

        private static void expectReleased(Runnable access, String what) {
            try {
                access.run();
            } catch (IllegalReferenceCountException expected) {
                return;
            }
            throw new AssertionError(what + " of a released buffer succeeded: it belongs to another thread now");
        }
    }

    /** Identity of a buffer object ({@code ByteBuf.equals} compares contents). */
    static final class Identity {
        private final Object object;

        Identity(Object object) {
            this.object = object;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Identity && ((Identity) other).object == object;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(object);
        }
    }
}
