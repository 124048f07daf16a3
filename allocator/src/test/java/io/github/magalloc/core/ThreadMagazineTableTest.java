package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of thread magazines by owner id: an entry gives a thread only its own magazine, and only until the magazine
 * ends, however many threads share the entry. Planted and caught: a lookup that does not compare the owner's id (both
 * tests), an offer that takes only empty entries (the first), an end that leaves the magazine in the table (the second).
 */
class ThreadMagazineTableTest {
    private final MagazineByteBufAllocator alloc = MagazineByteBufAllocator.builder().build();
    private final MemoryPool pool = TestAccess.pool(alloc, true);

    @Test
    void anEntryGivesAThreadOnlyItsOwnMagazineAndOnlyUntilItEnds() {
        Thread a = new Thread(() -> { }, "owner-a");
        Thread b = new Thread(() -> { }, "owner-b");
        ThreadMagazine ofA = new ThreadMagazine(pool.supply(), a, m -> MagazineDecay.NONE);
        ThreadMagazine ofB = new ThreadMagazine(pool.supply(), b, m -> MagazineDecay.NONE);
        ThreadMagazineTable table = new ThreadMagazineTable(1); // one entry: a and b share it

        table.offer(ofA);
        assertThat(table.lookup(a.getId())).as("a finds its own").isSameAs(ofA);
        assertThat(table.lookup(b.getId())).as("b does not find a's").isNull();

        table.offer(ofB);
        assertThat(table.lookup(b.getId())).as("b cannot take the entry of a live magazine").isNull();
        assertThat(table.lookup(a.getId())).as("a keeps it").isSameAs(ofA);

        ofA.end();
        table.offer(ofB);
        assertThat(table.lookup(b.getId())).as("b takes the entry of an ended magazine").isSameAs(ofB);
        assertThat(table.lookup(a.getId())).as("a finds nothing once b holds the entry").isNull();
        table.remove(ofA);
        assertThat(table.lookup(b.getId())).as("removing a's leaves b's").isSameAs(ofB);
        table.remove(ofB);
        assertThat(table.holds(ofB)).as("removed").isFalse();
    }

    /**
     * Six threads share a table of two entries, each looking its magazine up 20,000 times while some detach now and
     * then (ending their magazine, which leaves the table, and getting a new one): every lookup must give the calling
     * thread a magazine it owns, the same one until it detaches. Seeded; failures are collected and checked here.
     */
    @Test
    void threadsSharingEntriesNeverGetAnotherThreadsOrAnEndedMagazine() throws Exception {
        ThreadMagazines threads = new ThreadMagazines(pool.supply(), true, 2);
        int workers = 6;
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            long seed = 0x5EED_0000L + w;
            Thread worker = new Thread(() -> lookUpAndDetach(threads, seed, start, failures), "table-worker-" + w);
            worker.start();
            started.add(worker);
        }
        start.countDown();
        for (Thread worker : started) {
            worker.join(TimeUnit.SECONDS.toMillis(120));
            assertThat(worker.isAlive()).as(worker.getName() + " finished").isFalse();
        }
        assertThat(failures).as("lookups that gave a thread a magazine not its own, or an ended one").isEmpty();
        assertThat(threads.count()).as("live magazines once every thread detached").isZero();
    }

    private static void lookUpAndDetach(ThreadMagazines threads, long seed, CountDownLatch start,
                                        Queue<String> failures) {
        Random random = new Random(seed);
        long me = Thread.currentThread().getId();
        try {
            start.await();
            ThreadMagazine mine = null;
            for (int i = 0; i < 20_000; i++) {
                if (random.nextInt(400) == 0) {
                    threads.detachCurrentThread();
                    if (mine != null && threads.holds(mine)) {
                        failures.add(Thread.currentThread().getName() + " lookup " + i + ": ended, still in the table");
                    }
                    mine = null;
                    continue;
                }
                ThreadMagazine found = threads.current();
                if (found == null || found.lvOwnerThreadId() != me) {
                    failures.add(Thread.currentThread().getName() + " lookup " + i + ": "
                        + (found == null ? "none" : "owner " + found.lvOwnerThreadId()));
                } else if (mine != null && found != mine) {
                    failures.add(Thread.currentThread().getName() + " lookup " + i + ": another magazine of its own");
                }
                mine = found;
            }
        } catch (Throwable e) {
            failures.add(Thread.currentThread().getName() + ": " + e);
        } finally {
            threads.detachCurrentThread();
        }
    }
}
