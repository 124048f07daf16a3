package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.VirtualThreadsForTests;
import io.github.magalloc.buffer.MagByteBuf;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The spin lock's word ({@link SpinLock}): no holder gives memory back to the supply (which may free a slab with a
 * handshake, take the reuse pool's lock or start a thread), neither a stripe's nor an ended magazine's: what it retires
 * goes back after its unlock ({@link GivenBackAfterUnlock}); and an interrupted virtual thread waits for a lock with
 * its interrupt put aside, and keeps it. The supply's observer is told of every slab freed and every chunk retired, on
 * the thread that does it: it records whether a lock was held then. Planted (each fails here): a stripe or an ended
 * magazine giving back at once; a waiter that does not put its interrupt aside.
 */
class LockRulesTest {
    /** Reuse budget 0: every chunk retired frees its slab, and the observer sees it. */
    private static final PoolSettings SETTINGS = new PoolSettings(0, 1 << 20, 8 << 20, 2, false, 0, 0, false);

    /** Records, at each give-back, whether a lock the test watches was held. */
    private static final class Watching implements PoolEvents {
        final AtomicInteger givenBack = new AtomicInteger();
        final AtomicInteger underLock = new AtomicInteger();
        volatile BooleanSupplier lockHeld = () -> false;

        @Override
        public void slabFreed(int size, boolean pooled, long address, long reservedBytes) {
            seen();
        }

        @Override
        public void chunkRetired(int sizeClass, int chunkSize, long activeChunks, boolean pooled) {
            seen();
        }

        private void seen() {
            givenBack.incrementAndGet();
            if (lockHeld.getAsBoolean()) {
                underLock.incrementAndGet();
            }
        }
    }

    @Test
    void aStripeGivesBackOnlyAfterItsUnlock() {
        Watching events = new Watching();
        MemoryPool pool = new MemoryPool(MagazineByteBufAllocator.builder().build(), false, SETTINGS, events);
        events.lockHeld = () -> pool.stripes().stripe(0).isLockedForTests() || pool.stripes().stripe(1)
            .isLockedForTests();
        List<MagByteBuf> held = new ArrayList<>();
        for (int i = 0; i < 300; i++) { // several chunks: the parked ones retire at their last release
            held.add(pool.allocate(1024, 1024));
        }
        held.forEach(MagByteBuf::release); // a plain thread: each release under its stripe's lock
        pool.trim(); // the current chunks, retired under the lock too
        assertThat(events.givenBack).as("chunks retired and slabs freed").hasValueGreaterThan(2);
        assertThat(events.underLock).as("given back while a stripe's lock was held").hasValue(0);
    }

    @Test
    void anEndedMagazineGivesBackOnlyAfterItsUnlock() throws Exception {
        Watching events = new Watching();
        MemoryPool pool = new MemoryPool(MagazineByteBufAllocator.builder().build(), false, SETTINGS, events);
        List<MagByteBuf> held = new ArrayList<>();
        Thread owner = new Thread(() -> {
            pool.attachCurrentThread();
            for (int i = 0; i < 300; i++) {
                held.add(pool.allocate(1024, 1024));
            }
            pool.detachCurrentThread(); // the magazine ends holding every buffer
        });
        owner.start();
        owner.join();
        PaddedSpinLock handover = endedLock(held.get(0));
        events.lockHeld = handover::isHeld;
        held.forEach(MagByteBuf::release); // each under the hand-over's lock; the last of a chunk retires it
        assertThat(events.givenBack).as("chunks retired and slabs freed").hasValueGreaterThan(2);
        assertThat(events.underLock).as("given back while the hand-over's lock was held").hasValue(0);
        assertThat(pool.metrics().endedThreadsBytes()).isZero();
    }

    /**
     * A virtual thread, interrupted, waits for a lock the test holds: the test lets the lock go only once the waiter
     * has put its interrupt aside (a park would return at once otherwise, and the waiter spin), and the waiter must
     * hold its interrupt again once it has the lock.
     */
    @Test
    void anInterruptedVirtualThreadWaitsWithItsInterruptAsideAndKeepsIt() throws Exception {
        PaddedSpinLock lock = new PaddedSpinLock();
        AtomicBoolean keptInterrupt = new AtomicBoolean();
        lock.lock();
        Thread waiter = VirtualThreadsForTests.factory().newThread(() -> {
            Thread.currentThread().interrupt();
            lock.lock();
            keptInterrupt.set(Thread.currentThread().isInterrupted());
            lock.unlock();
        });
        waiter.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            boolean putAside = false;
            while (!putAside && System.nanoTime() < deadline) {
                Thread.sleep(1);
                putAside = waiter.isAlive() && !waiter.isInterrupted();
            }
            assertThat(putAside).as("the waiter put its interrupt aside to park").isTrue();
        } finally {
            lock.unlock();
        }
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(keptInterrupt).as("the waiter's interrupt, once it held the lock").isTrue();
    }

    /** The lock of the hand-over of the ended magazine that owns {@code buf}'s chunk. */
    private static PaddedSpinLock endedLock(MagByteBuf buf) throws ReflectiveOperationException {
        ThreadMagazine magazine = (ThreadMagazine) ((SizeClassChunk) buf.memory()).lpMagazine();
        Field ended = ThreadMagazine.class.getDeclaredField("ended");
        ended.setAccessible(true);
        Field lock = EndedMagazine.class.getDeclaredField("lock");
        lock.setAccessible(true);
        return (PaddedSpinLock) lock.get(ended.get(magazine));
    }
}
