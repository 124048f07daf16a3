package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.MagByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each rule of a stripe's virtual threads' objects (protocol 5a (virtual threads' objects)), driven from platform
 * threads: the home does not care what kind of thread its holders are, so this runs on JDK 17 too. A holder that
 * "still runs" is a started thread blocked on a latch; one that "has ended" is a thread that was joined.
 */
class VirtualThreadObjectsTest {
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
    private final MemoryPool pool = TestAccess.pool(allocator, true);
    private final PaddedSpinLock lock = new PaddedSpinLock();
    private final VirtualThreadObjects home = new VirtualThreadObjects(pool.supply().context, lock);

    private MagByteBuf take() {
        lock.lock();
        try {
            return home.take();
        } finally {
            lock.unlock();
        }
    }

    /** What a release does after the memory went back: the object goes home, on the calling thread. */
    private void recycle(MagByteBuf buf) {
        home.recycle(buf, Thread.currentThread().getId());
    }

    /** Runs {@code body} on a new platform thread that stays alive, blocked, until the returned latch is opened. */
    private static CountDownLatch onThreadThatKeepsRunning(Runnable body) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            body.run();
            done.countDown();
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "holder-that-runs");
        thread.start();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        return end;
    }

    private static void onThreadThatEnds(Runnable body) throws InterruptedException {
        Thread thread = new Thread(body, "holder-that-ends");
        thread.start();
        thread.join();
        assertThat(thread.isAlive()).isFalse();
    }

    @Test
    void anObjectIsHandedOutWithTheCallerAsItsHolder() {
        MagByteBuf buf = take();
        assertThat(buf.holder()).isSameAs(Thread.currentThread());
        assertThat(buf.home()).isSameAs(home);
        assertThat(home.handedOutOn(buf, Thread.currentThread().getId())).isTrue();
        assertThat(home.handedOutOn(buf, Thread.currentThread().getId() + 1)).isFalse();
    }

    @Test
    void theHolderGetsItsOwnReleasedObjectBack() {
        MagByteBuf buf = take();
        recycle(buf);
        assertThat(home.waitingCount()).isEqualTo(1);
        assertThat(take()).isSameAs(buf);
    }

    @Test
    @Timeout(30)
    void objectsReleasedByAThreadThatStillRunsGoToNoOtherThread() throws Exception {
        // Enough objects that a take looks at the top, the bottom and leaves some between.
        int count = 2 * VirtualThreadObjects.LOOKS + 1;
        List<MagByteBuf> released = new ArrayList<>();
        CountDownLatch end = onThreadThatKeepsRunning(() -> {
            for (int i = 0; i < count; i++) {
                released.add(take());
            }
            released.forEach(this::recycle);
        });
        try {
            for (int i = 0; i < 100; i++) {
                MagByteBuf taken = take();
                assertThat(released).as("take %d", i).noneMatch(buf -> buf == taken);
            }
            assertThat(home.waitingCount()).isEqualTo(count);
            assertThat(released.get(0).holder().isAlive()).isTrue();
        } finally {
            end.countDown();
        }
    }

    @Test
    @Timeout(30)
    void anObjectReleasedByAThreadThatEndedGoesToAnyThread() throws Exception {
        AtomicReference<MagByteBuf> released = new AtomicReference<>();
        onThreadThatEnds(() -> {
            MagByteBuf buf = take();
            recycle(buf);
            released.set(buf);
        });
        MagByteBuf taken = take();
        assertThat(taken).isSameAs(released.get());
        assertThat(taken.holder()).isSameAs(Thread.currentThread());
    }

    @Test
    @Timeout(30)
    void aTakeLooksPastObjectsWhoseHoldersStillRunToOnesItMayHave() throws Exception {
        // The ended thread's object at the bottom, among the top LOOKS.
        takeTheEndedThreadsObjectBelowOnesOfARunningThread(VirtualThreadObjects.LOOKS - 1);
    }

    @Test
    @Timeout(30)
    void aTakeLooksAtTheBottomWhenTheHoldersOfTheTopObjectsAllStillRun() throws Exception {
        // The ended thread's object at the bottom, below the top LOOKS: a wave of releases by running threads.
        takeTheEndedThreadsObjectBelowOnesOfARunningThread(VirtualThreadObjects.LOOKS + 5);
    }

    /**
     * A thread that ended released an object, then a thread that keeps running released {@code above} objects on top
     * of it: a take gets the ended thread's object, and the next a new one.
     */
    private void takeTheEndedThreadsObjectBelowOnesOfARunningThread(int above) throws Exception {
        List<MagByteBuf> ofRunning = new ArrayList<>();
        CountDownLatch taken = new CountDownLatch(1);
        CountDownLatch endedReleased = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread running = new Thread(() -> {
            for (int i = 0; i < above; i++) {
                ofRunning.add(take());
            }
            taken.countDown();
            await(endedReleased);
            ofRunning.forEach(this::recycle);
            await(end);
        }, "holder-that-runs");
        running.start();
        await(taken);
        try {
            AtomicReference<MagByteBuf> ofEnded = new AtomicReference<>();
            onThreadThatEnds(() -> {
                MagByteBuf buf = take();
                recycle(buf);
                ofEnded.set(buf);
            });
            endedReleased.countDown();
            waitUntil(() -> home.waitingCount() == above + 1);
            assertThat(take()).isSameAs(ofEnded.get());
            // Only objects of the running thread are left: a new one.
            MagByteBuf fresh = take();
            assertThat(ofRunning).noneMatch(buf -> buf == fresh);
            assertThat(home.waitingCount()).isEqualTo(above);
        } finally {
            end.countDown();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // only a bug reaches it
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }

    @Test
    @Timeout(30)
    void anotherThreadsReleaseDropsTheObjectWhenTheLockIsBusy() throws Exception {
        MagByteBuf buf = take();
        lock.lock();
        try {
            CompletableFuture.runAsync(() -> home.recycle(buf, Thread.currentThread().getId()),
                runnable -> new Thread(runnable, "foreign-releaser").start()).get(10, TimeUnit.SECONDS);
        } finally {
            lock.unlock();
        }
        assertThat(home.waitingCount()).isZero();
        // With the lock free it is kept.
        MagByteBuf other = take();
        CompletableFuture.runAsync(() -> home.recycle(other, Thread.currentThread().getId()),
            runnable -> new Thread(runnable, "foreign-releaser").start()).get(10, TimeUnit.SECONDS);
        assertThat(home.waitingCount()).isEqualTo(1);
    }

    @Test
    @Timeout(60)
    void aSweepStaysArmedWhileAHolderRunsAndProtectsItsObject() throws Exception {
        AtomicReference<MagByteBuf> ofRunning = new AtomicReference<>();
        CountDownLatch taken = new CountDownLatch(1);
        CountDownLatch endedReleased = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread running = new Thread(() -> {
            ofRunning.set(take());
            taken.countDown();
            await(endedReleased);
            recycle(ofRunning.get());
            released.countDown();
            await(end);
        }, "holder-that-runs");
        running.start();
        await(taken);
        AtomicReference<MagByteBuf> ended = new AtomicReference<>();
        onThreadThatEnds(() -> {
            MagByteBuf buf = take();
            recycle(buf);
            ended.set(buf);
        });
        MagByteBuf ofEnded = ended.get();
        assertThat(home.lvSweepArmed()).as("the release armed a sweep").isTrue();
        endedReleased.countDown();
        await(released);
        try {
            home.sweep();
            assertThat(home.lvSweepArmed()).as("armed again: a holder still runs").isTrue();
            assertThat(take()).as("the ended holder's object, below the running one's").isSameAs(ofEnded);
            assertThat(take()).as("the running holder's object, after the sweep").isNotSameAs(ofRunning.get());
        } finally {
            end.countDown();
        }
        ofRunning.get().holder().join();
        home.sweep();
        assertThat(home.lvSweepArmed()).as("nothing left to forget").isFalse();
    }

    @Test
    @Timeout(60)
    void garbageCollectionsAloneLetGoOfAThreadThatEnded() throws Exception {
        WeakReference<Thread> ended = endedThreadThatReleasedAnObject();
        // No call into the allocator from here on: the collections run the armed sweep, which clears the holder.
        assertThat(collected(ended)).isTrue();
        assertThat(home.waitingCount()).as("the object itself stays for reuse").isEqualTo(1);
    }

    /** A thread that took an object, released it and ended; nothing but the waiting object names it. */
    private WeakReference<Thread> endedThreadThatReleasedAnObject() throws InterruptedException {
        Thread thread = new Thread(() -> recycle(take()), "holder-that-ends");
        thread.start();
        thread.join();
        return new WeakReference<>(thread);
    }

    /** Whether {@code ref} is cleared within 30 s of garbage collections. */
    private static boolean collected(WeakReference<?> ref) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ref.get() != null && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        return ref.get() == null;
    }

    @Test
    void theStackHoldsItsShareOfThePoolsObjectsAndDropsTheRest() {
        int capacity = VirtualThreadObjects.OBJECTS_PER_POOL; // one stripe: the whole share
        List<MagByteBuf> taken = new ArrayList<>();
        for (int i = 0; i < capacity + 10; i++) {
            taken.add(take());
        }
        taken.forEach(this::recycle);
        assertThat(home.waitingCount()).isEqualTo(capacity);
    }

    @Test
    void inDebugModeNothingIsKept() {
        MagazineByteBufAllocator debug = MagazineByteBufAllocator.builder().sharedMagazines(1).debug(true).build();
        VirtualThreadObjects debugHome = new VirtualThreadObjects(TestAccess.pool(debug, true).supply().context, lock);
        lock.lock();
        MagByteBuf buf;
        try {
            buf = debugHome.take();
        } finally {
            lock.unlock();
        }
        debugHome.recycle(buf, Thread.currentThread().getId());
        assertThat(debugHome.waitingCount()).isZero();
        assertThat(debugHome.lvSweepArmed()).isFalse();
    }
}
