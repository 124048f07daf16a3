package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Protocol 3b (resident memory) in design.md: a trim of the C heap is looked for once a megabyte of direct memory
 * went back to the C allocator, never runs on the freeing thread, waits until no memory was freed for the quiet
 * period (or at the latest ten periods after the last trim), misses no free that came while it ran, and stops being
 * asked for where the JVM cannot trim; an allocator's frees get one (after the collector freed the memory, where
 * Netty leaves that to it).
 */
class RateLimitedNativeTrimTest {
    private static final long QUIET_MILLIS = 1_000;
    private static final long MIB = 1L << 20;

    /** Keeps the scheduled tasks instead of running them: the test runs them. */
    private static final class ManualScheduler implements BackgroundThread.Scheduler {
        final List<Runnable> tasks = new ArrayList<>();
        final List<Long> delays = new ArrayList<>();

        @Override
        public void schedule(Runnable task, long delayMillis) {
            tasks.add(task);
            delays.add(delayMillis);
        }

        /** Runs the last task scheduled. */
        void runLast() {
            tasks.get(tasks.size() - 1).run();
        }
    }

    private final ManualScheduler scheduler = new ManualScheduler();
    private final AtomicInteger trims = new AtomicInteger();
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final RateLimitedNativeTrim trim = new RateLimitedNativeTrim(QUIET_MILLIS, this::countTrim, scheduler,
        nanos::get);

    private String countTrim() {
        trims.incrementAndGet();
        return "Trim native heap: RSS+Swap: 2M->1M (-1M)";
    }

    private void advanceMillis(long millis) {
        nanos.addAndGet(millis * 1_000_000);
    }

    @Test
    void lessThanAMegabyteFreedSchedulesNothing() {
        trim.afterFree(MIB - 1);
        assertThat(scheduler.tasks).isEmpty();
        assertThat(trim.isPending()).isFalse();
    }

    @Test
    void aMegabyteFreedSchedulesOneLookAfterTheQuietPeriodAndTheFreeingThreadNeverTrims() {
        trim.afterFree(MIB / 2);
        trim.afterFree(MIB / 2);
        trim.afterFree(4 * MIB);
        assertThat(trims).as("no trim on the freeing thread").hasValue(0);
        assertThat(scheduler.tasks).hasSize(1);
        assertThat(scheduler.delays.get(0)).isEqualTo(QUIET_MILLIS);
        advanceMillis(QUIET_MILLIS);
        scheduler.runLast();
        assertThat(trims).hasValue(1);
        assertThat(trim.isPending()).isFalse();
    }

    @Test
    void freesThatKeepComingPutTheTrimOffUntilTheyStop() {
        trim.afterFree(MIB);
        for (int i = 0; i < 5; i++) {
            advanceMillis(QUIET_MILLIS / 2);
            trim.afterFree(MIB); // bursts: memory freed every half period
            advanceMillis(QUIET_MILLIS / 2);
            scheduler.runLast();
            assertThat(trims).as("no trim while the frees keep coming").hasValue(0);
            assertThat(scheduler.delays.get(scheduler.delays.size() - 1)).isEqualTo(QUIET_MILLIS / 2);
        }
        advanceMillis(QUIET_MILLIS / 2);
        scheduler.runLast();
        assertThat(trims).as("the frees stopped a quiet period ago").hasValue(1);
        assertThat(trim.isPending()).isFalse();
    }

    @Test
    void aSteadyTrickleIsTrimmedTenPeriodsAfterTheLastTrimAtTheLatest() {
        for (int i = 0; i < 4 * RateLimitedNativeTrim.MAX_WAIT_PERIODS; i++) {
            trim.afterFree(MIB);
            advanceMillis(QUIET_MILLIS / 4);
            if (trim.isPending()) {
                scheduler.runLast();
            }
        }
        assertThat(trims).as("10 s of frees every quarter second").hasValue(1);
    }

    @Test
    void aFreeWhileTheTrimRunsIsTrimmedByTheNextOne() {
        RateLimitedNativeTrim[] self = new RateLimitedNativeTrim[1];
        self[0] = new RateLimitedNativeTrim(QUIET_MILLIS, () -> {
            if (trims.incrementAndGet() == 1) {
                self[0].afterFree(MIB); // counted after the trim started, so not trimmed by it
            }
            return "Trim native heap";
        }, scheduler, nanos::get);
        self[0].afterFree(MIB);
        advanceMillis(QUIET_MILLIS);
        scheduler.runLast();
        assertThat(trims).hasValue(1);
        assertThat(scheduler.tasks).as("the free during the trim scheduled the next look").hasSize(2);
        assertThat(self[0].isPending()).isTrue();
        advanceMillis(QUIET_MILLIS);
        scheduler.runLast();
        assertThat(trims).hasValue(2);
        assertThat(self[0].isPending()).isFalse();
    }

    @Test
    void whereTheJvmCannotTrimNoMoreTrimsAreScheduled() {
        RateLimitedNativeTrim unavailable = new RateLimitedNativeTrim(QUIET_MILLIS, () -> {
            trims.incrementAndGet();
            return null;
        }, scheduler, nanos::get);
        unavailable.afterFree(MIB);
        advanceMillis(QUIET_MILLIS);
        scheduler.runLast();
        unavailable.afterFree(8 * MIB);
        assertThat(scheduler.tasks).hasSize(1);
        assertThat(trims).hasValue(1);
    }

    @Test
    void aSchedulerThatFailsSkipsTheTrimRatherThanRunItOnTheFreeingThread() {
        RateLimitedNativeTrim noThread = new RateLimitedNativeTrim(QUIET_MILLIS, this::countTrim, (task, delay) -> {
            throw new IllegalStateException("no thread");
        }, nanos::get);
        noThread.afterFree(MIB);
        advanceMillis(QUIET_MILLIS);
        noThread.afterFree(MIB);
        assertThat(trims).hasValue(0);
        assertThat(noThread.isPending()).isFalse();
    }

    @Test
    void heapPoolsAndATrimIntervalOfZeroTrimNothing() {
        MagazineByteBufAllocator off = MagazineByteBufAllocator.builder().nativeTrimMillis(0).build();
        MagazineByteBufAllocator on = MagazineByteBufAllocator.builder().build();
        assertThat(TestAccess.pool(off, true).supply().nativeTrim()).isSameAs(NativeTrim.NONE);
        assertThat(TestAccess.pool(on, false).supply().nativeTrim()).isSameAs(NativeTrim.NONE);
        assertThat(TestAccess.pool(on, true).supply().nativeTrim()).isInstanceOf(RateLimitedNativeTrim.class);
    }

    /**
     * Through an allocator with the real trim, on this machine's JVM: freeing a few megabytes of direct slabs makes a
     * trim pending, and the background thread runs it within a second.
     */
    @Test
    void anAllocatorsFreedSlabsAreTrimmedOnTheBackgroundThread() throws InterruptedException {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "System.trim_native_heap trims on Linux only");
        MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().reuseBudgetBytes(0).decayMillis(0)
            .nativeTrimMillis(100).build();
        RateLimitedNativeTrim pending = (RateLimitedNativeTrim) TestAccess.pool(allocator, true).supply().nativeTrim();
        List<ByteBuf> huge = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            huge.add(allocator.directBuffer(2 << 20)); // above maxPooledSize: freed on release
        }
        huge.forEach(ByteBuf::release);
        if (DirectMemoryRelease.HERE == DirectMemoryRelease.BY_THE_COLLECTOR) {
            System.gc(); // the freed slabs' memory waits for the collector, and the trim after it
        }
        long deadline = System.nanoTime() + 60_000_000_000L; // only a bug reaches it
        while (pending.trims() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(pending.trims()).as("trims 60 s after 8 MiB of direct slabs were freed").isPositive();
        assertThat(pending.isPending()).isFalse();
    }
}
