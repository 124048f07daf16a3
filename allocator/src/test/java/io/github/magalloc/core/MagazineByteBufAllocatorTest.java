package io.github.magalloc.core;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.MagazineByteBufAllocatorMetric;
import io.github.magalloc.TestAccess;
import io.github.magalloc.buffer.MagByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MagazineByteBufAllocatorTest {
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();
    private final MagazineByteBufAllocatorMetric metric = allocator.metric();

    // ------------------------------------------------------------------ bad input

    @Test
    void negativeCapacityNamesTheValue() {
        assertThatThrownBy(() -> allocator.directBuffer(-1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("-1");
        assertThatThrownBy(() -> allocator.heapBuffer(-5, 10)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("-5");
    }

    @Test
    void initialCapacityAboveMaxNamesBothValues() {
        assertThatThrownBy(() -> allocator.directBuffer(100, 10)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("100").hasMessageContaining("10");
    }

    @Test
    void growingPastMaxCapacityIsRejectedAndLosesNothing() {
        ByteBuf buf = allocator.directBuffer(16, 32);
        buf.writeLong(42);
        assertThatThrownBy(() -> buf.capacity(33)).isInstanceOf(IllegalArgumentException.class);
        assertThat(buf.readLong()).isEqualTo(42);
        buf.release();
    }

    @Test
    void doubleReleaseThrows() {
        for (boolean direct : new boolean[] {true, false}) {
            ByteBuf buf = direct ? allocator.directBuffer(64) : allocator.heapBuffer(64);
            assertThat(buf.release()).isTrue();
            assertThatThrownBy(buf::release).isInstanceOf(IllegalReferenceCountException.class);
        }
    }

    @Test
    void useAfterReleaseThrows() {
        ByteBuf buf = allocator.directBuffer(64);
        buf.release();
        assertThatThrownBy(() -> buf.getByte(0)).isInstanceOf(IllegalReferenceCountException.class);
        assertThatThrownBy(() -> buf.writeInt(1)).isInstanceOf(IllegalReferenceCountException.class);
    }

    @Test
    void retainedBufferIsDeallocatedOnlyByTheLastRelease() {
        ByteBuf buf = allocator.heapBuffer(64);
        buf.retain();
        assertThat(buf.release()).isFalse();
        assertThat(buf.refCnt()).isEqualTo(1);
        buf.writeInt(7);
        assertThat(buf.release()).isTrue();
        assertThat(buf.refCnt()).isZero();
    }

    @Test
    void debugModeDetectsStaleBuffersAndPoisonsFreedMemory() {
        MagazineByteBufAllocator debug = MagazineByteBufAllocator.builder().debug(true).build();
        ByteBuf stale = debug.heapBuffer(64);
        stale.writeLong(0x0102030405060708L);
        byte[] array = stale.array();
        int offset = stale.arrayOffset();
        stale.release();
        for (int i = 0; i < 64; i++) {
            assertThat(array[offset + i]).as("byte %d", i).isEqualTo(MagByteBuf.POISON);
        }
        ByteBuf fresh = debug.heapBuffer(64);
        assertThat(TestAccess.magByteBuf(fresh)).isNotSameAs(TestAccess.magByteBuf(stale));
        assertThatThrownBy(stale::release).isInstanceOf(IllegalReferenceCountException.class);
        assertThatThrownBy(() -> stale.getLong(0)).isInstanceOf(IllegalReferenceCountException.class);
        assertThat(fresh.refCnt()).as("the new owner's buffer is untouched").isEqualTo(1);
        fresh.release();
    }

    // ------------------------------------------------------------------ sizes

    @Test
    void largeAndHugeBuffersAreAccountedAndFreed() {
        ByteBuf large = allocator.directBuffer(100 * 1024);
        ByteBuf huge = allocator.directBuffer(2 * 1024 * 1024);
        assertThat(metric.hugeMemory(true)).isEqualTo(2 * 1024 * 1024);
        assertThat(metric.usedDirectMemory()).isGreaterThanOrEqualTo(2 * 1024 * 1024 + 100 * 1024);
        large.writeBytes(new byte[100 * 1024]);
        huge.writerIndex(huge.capacity());
        huge.release();
        assertThat(metric.hugeMemory(true)).isZero();
        large.release();
        allocator.trim(); // the shared magazine drops its unused large chunk too
        assertThat(metric.usedDirectMemory()).isZero();
    }

    @Test
    void releasedBufferObjectsKeepNoFreedMemoryReachable() throws InterruptedException {
        ByteBuf huge = allocator.heapBuffer(4 << 20); // above the pooling limit: a byte[] of its own
        MagByteBuf object = TestAccess.magByteBuf(huge);
        WeakReference<byte[]> memory = new WeakReference<>(huge.array());
        huge.release();
        assertThat(metric.hugeMemory(false)).isZero();
        for (int i = 0; i < 50 && memory.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(memory.get()).as("freed huge array still reachable").isNull();
        ByteBuf next = allocator.heapBuffer(16);
        assertThat(TestAccess.magByteBuf(next)).as("the object itself was kept for reuse").isSameAs(object);
        next.release();
    }

    @Test
    void growthIsInPlaceWithinTheSegmentAndCopiesBeforeMoving() {
        ByteBuf buf = allocator.directBuffer(600); // 640-byte class
        for (int i = 0; i < 600; i++) {
            buf.writeByte(i);
        }
        String before = TestAccess.memoryIdentity(buf);
        buf.ensureWritable(40);
        assertThat(TestAccess.memoryIdentity(buf)).isEqualTo(before);
        buf.ensureWritable(100_000); // into a large chunk
        assertThat(TestAccess.memoryIdentity(buf)).isNotEqualTo(before);
        for (int i = 0; i < 600; i++) {
            assertThat(buf.getByte(i)).isEqualTo((byte) i);
        }
        buf.release();
    }

    /**
     * Growth reserves the next doubling (up to 8 KiB asked), so growing by Netty's doubling from 64 B to 16 KiB
     * moves 4 times (to 256, 1,024, 4,096 and 16,384 reserved bytes) instead of 8, and keeps every byte.
     */
    @Test
    void aGrowingBufferReservesItsNextDoublingSoItMovesEveryOtherTime() {
        ByteBuf buf = allocator.directBuffer(64);
        List<Integer> reservedAfterEachMove = new ArrayList<>();
        String memory = TestAccess.memoryIdentity(buf);
        while (buf.capacity() < 16 * 1024) {
            while (buf.isWritable()) {
                buf.writeByte(buf.writerIndex());
            }
            buf.ensureWritable(buf.capacity());
            if (!TestAccess.memoryIdentity(buf).equals(memory)) {
                memory = TestAccess.memoryIdentity(buf);
                reservedAfterEachMove.add(TestAccess.reservedBytes(buf));
            }
            assertThat(TestAccess.reservedBytes(buf)).as("reserved for capacity %d", buf.capacity())
                .isLessThanOrEqualTo(2 * buf.capacity());
        }
        assertThat(reservedAfterEachMove).containsExactly(256, 1024, 4096, 16 * 1024);
        for (int i = 0; i < buf.writerIndex(); i++) {
            assertThat(buf.getByte(i)).as("byte %d", i).isEqualTo((byte) i);
        }
        buf.release();
    }

    @Test
    void growthReservesTheClassOfTwiceTheCapacityButNothingBeyond8KiBNorBeyondTheMaxCapacity() {
        ByteBuf big = allocator.directBuffer(16 * 1024);
        big.capacity(20 * 1024);
        assertThat(TestAccess.reservedBytes(big)).as("the 20,480-byte class, not twice").isEqualTo(20 * 1024);
        big.release();

        ByteBuf odd = allocator.directBuffer(600); // the 640-byte class
        odd.capacity(700);
        assertThat(TestAccess.reservedBytes(odd)).as("the class of 1,400 bytes").isEqualTo(1536);
        assertThat(odd.capacity()).isEqualTo(700);
        odd.release();

        ByteBuf capped = allocator.directBuffer(64, 130);
        capped.capacity(128);
        // 130 bytes at most: the 192-byte class, not the 256 bytes a doubling would reserve.
        assertThat(TestAccess.reservedBytes(capped)).isEqualTo(192);
        capped.release();
    }

    // ------------------------------------------------------------------ threads

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void eventLoopThreadsGetTheirOwnMagazineWhichGivesEverythingBackAfterTheyEnd() throws Exception {
        List<ByteBuf> fromDeadThread = new ArrayList<>();
        AtomicInteger magazinesSeenByTheLoop = new AtomicInteger(-1);
        Thread eventLoop = new DefaultThreadFactory("test-loop").newThread(() -> {
            for (int i = 0; i < 200; i++) {
                ByteBuf buf = allocator.directBuffer(256);
                buf.writeInt(i);
                fromDeadThread.add(buf);
            }
            magazinesSeenByTheLoop.set(metric.threadLocalMagazines(true));
        });
        eventLoop.start();
        eventLoop.join();
        assertThat(magazinesSeenByTheLoop.get()).as("the loop had a magazine of its own").isEqualTo(1);
        assertThat(metric.threadLocalMagazines(true)).as("ended at thread exit").isZero();
        assertThat(metric.endedThreadsMemory(true)).as("held for the dead thread's live buffers").isPositive();
        for (int i = 0; i < fromDeadThread.size(); i++) {
            assertThat(fromDeadThread.get(i).readInt()).isEqualTo(i);
            fromDeadThread.get(i).release();
        }
        assertThat(metric.endedThreadsMemory(true)).as("given back by the releases themselves, no trim()").isZero();
        allocator.trim();
        assertThat(metric.usedDirectMemory()).as("nothing of the dead thread is kept after trim").isZero();
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void bufferObjectsReleasedOnAnotherThreadGoBackToTheirMagazine() throws Exception {
        java.util.concurrent.SynchronousQueue<List<ByteBuf>> handOff = new java.util.concurrent.SynchronousQueue<>();
        java.util.concurrent.SynchronousQueue<Boolean> released = new java.util.concurrent.SynchronousQueue<>();
        Set<Object> firstObjects = Collections.newSetFromMap(new IdentityHashMap<>());
        java.util.concurrent.atomic.AtomicInteger reused = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean distinct = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread eventLoop = new DefaultThreadFactory("test-loop").newThread(() -> {
            try {
                List<ByteBuf> bufs = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    ByteBuf buf = allocator.directBuffer(256);
                    bufs.add(buf);
                    firstObjects.add(TestAccess.magByteBuf(buf));
                }
                handOff.put(bufs);
                released.take();
                // Enough to use up the chunk's never-used segments and then the 100 released elsewhere, which
                // come back with their objects (each segment keeps its own).
                List<ByteBuf> again = new ArrayList<>();
                Set<Object> handedOut = Collections.newSetFromMap(new IdentityHashMap<>());
                for (int i = 0; i < 1_000; i++) {
                    ByteBuf buf = allocator.directBuffer(256);
                    again.add(buf);
                    if (!handedOut.add(TestAccess.magByteBuf(buf))) {
                        distinct.set(false);
                    }
                    if (firstObjects.contains(TestAccess.magByteBuf(buf))) {
                        reused.incrementAndGet();
                    }
                }
                again.forEach(ByteBuf::release);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        eventLoop.setUncaughtExceptionHandler((t, e) -> handOff.offer(List.of()));
        eventLoop.start();
        handOff.take().forEach(ByteBuf::release); // released here, on a thread that is not the owner
        released.put(true);
        eventLoop.join();
        assertThat(reused.get()).as("objects released elsewhere are reused by their own magazine").isEqualTo(100);
        assertThat(distinct).as("no object handed out twice among live buffers").isTrue();
    }

    @Test
    void optedInPlainThreadThatDiesIsReapedByTrim() throws Exception {
        List<ByteBuf> fromDeadThread = new ArrayList<>();
        Thread worker = new Thread(() -> {
            allocator.attachCurrentThread();
            for (int i = 0; i < 100; i++) {
                fromDeadThread.add(allocator.heapBuffer(2048).writeLong(i));
            }
        });
        worker.start();
        worker.join();
        assertThat(metric.threadLocalMagazines(false)).as("nobody noticed the death yet").isEqualTo(1);
        fromDeadThread.forEach(ByteBuf::release);
        allocator.trim();
        assertThat(metric.threadLocalMagazines(false)).isZero();
        assertThat(metric.usedHeapMemory()).isZero();
    }

    @Test
    void detachHandsOverAndBuffersStayValid() {
        allocator.attachCurrentThread();
        ByteBuf buf = allocator.directBuffer(512).writeInt(99);
        assertThat(metric.threadLocalMagazines(true)).isEqualTo(1);
        allocator.detachCurrentThread();
        assertThat(metric.threadLocalMagazines(true)).isZero();
        assertThat(buf.readInt()).isEqualTo(99);
        buf.release();
        allocator.trim();
        assertThat(metric.usedDirectMemory()).isZero();
    }

    /**
     * trim() on a thread with a magazine of its own gives that magazine's free chunks back at once, with no
     * allocation after it, so a trim run on each event loop leaves nothing pooled there; another thread's trim only
     * asks the owner, whose lists it cannot touch.
     */
    @Test
    void trimOnTheOwnerThreadGivesItsMagazinesFreeChunksBackAtOnce() throws Exception {
        allocator.attachCurrentThread();
        try {
            List<ByteBuf> bufs = new ArrayList<>();
            for (int size : new int[] {64, 1024, 16 * 1024, 100 * 1024}) {
                for (int i = 0; i < 50; i++) {
                    bufs.add(allocator.directBuffer(size).writeInt(i));
                }
            }
            bufs.forEach(ByteBuf::release);
            assertThat(metric.usedDirectMemory()).as("the magazine keeps its free chunks").isPositive();
            CompletableFuture.runAsync(allocator::trim).get();
            assertThat(metric.usedDirectMemory()).as("another thread's trim only asks the owner").isPositive();
            allocator.trim();
            assertThat(metric.usedDirectMemory()).as("the owner's own trim gives back at once").isZero();
        } finally {
            allocator.detachCurrentThread();
        }
    }

    @Test
    void plainThreadsShareStripedMagazinesAndReleaseAnywhere() throws Exception {
        ByteBuf[] bufs = new ByteBuf[1000];
        CompletableFuture.runAsync(() -> {
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = allocator.directBuffer(100).writeInt(i);
            }
        }).get();
        assertThat(metric.threadLocalMagazines(true)).isZero();
        for (int i = 0; i < bufs.length; i++) {
            assertThat(bufs[i].readInt()).isEqualTo(i);
            bufs[i].release();
        }
        allocator.trim();
        assertThat(metric.usedDirectMemory()).isZero();
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStripeTakesOtherThreadsReleasesThroughTheRemoteQueueAndItsOwnUnderTheLock() throws Exception {
        // A producer thread allocates, this thread releases: the segments go to the chunk's remote queue without
        // the stripe's lock (held here by this thread after the first release, so a release that needed it would
        // wait forever), and the producer's refill takes them back with no new slab. Only the first release into
        // the chunk from another thread takes the lock, once, to mark the chunk (Stripe.onFirstRemoteRelease); the
        // chunk is current, so its segment stays in the queue too. A buffer released on the thread that allocated it
        // still goes back under the lock, at once.
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        int count = 16;
        List<ByteBuf> produced = CompletableFuture.supplyAsync(() -> {
            List<ByteBuf> bufs = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                bufs.add(oneStripe.directBuffer(256).writeInt(i));
            }
            return bufs;
        }, runnable -> new Thread(runnable, "producer").start()).get();
        SizeClassChunk chunk = (SizeClassChunk) TestAccess.magByteBuf(produced.get(0)).memory();
        Stripe stripe = (Stripe) chunk.lpMagazine();
        int freeBefore = chunk.freeCount;
        assertThat(produced.get(0).release()).isTrue();
        assertThat(chunk.lvRemotelyReleased()).isTrue();
        stripe.lock();
        try {
            for (ByteBuf buf : produced.subList(1, count)) {
                assertThat(buf.release()).isTrue();
            }
            assertThat(chunk.remoteFrees.size()).isEqualTo(count);
            assertThat(chunk.freeCount).isEqualTo(freeBefore);
        } finally {
            stripe.unlock();
        }

        ByteBuf own = oneStripe.directBuffer(256);
        MagByteBuf ownObject = TestAccess.magByteBuf(own);
        assertThat(ownObject.memory()).isSameAs(chunk);
        int freeWhileOwnLive = chunk.freeCount;
        own.release();
        assertThat(chunk.freeCount).as("an own-thread release goes back under the lock").isEqualTo(freeWhileOwnLive + 1);
        assertThat(chunk.remoteFrees.size()).isEqualTo(count);

        long slabsBefore = TestAccess.pool(oneStripe, true).metrics().slabsAllocated();
        List<ByteBuf> again = new ArrayList<>();
        int untilDrain = chunk.freeCount + count;
        for (int i = 0; i < untilDrain; i++) {
            again.add(oneStripe.directBuffer(256));
        }
        assertThat(again).allSatisfy(buf -> assertThat(TestAccess.magByteBuf(buf).memory()).isSameAs(chunk));
        assertThat(chunk.remoteFrees.size()).as("the refill drained the remote queue").isZero();
        assertThat(TestAccess.pool(oneStripe, true).metrics().slabsAllocated()).isEqualTo(slabsBefore);
        again.forEach(ByteBuf::release);
        oneStripe.trim();
        assertThat(oneStripe.metric().usedDirectMemory()).isZero();
    }

    @Test
    @Timeout(30)
    void aStripesChunkWhoseBuffersAllCameBackOnAnotherThreadIsRetiredWithoutTrim() throws Exception {
        // A producer fills a chunk (and starts the next one, so the first is parked as full); this thread releases
        // the first chunk's buffers. They go to its remote queue (the first also marks the chunk, protocol 2b (parked chunks)), and
        // the release that completes it retires the chunk under the stripe's lock at once, instead of at the next
        // refill of the size or trim().
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        List<ByteBuf> produced = CompletableFuture.supplyAsync(() -> fillOneChunkAndStartTheNext(oneStripe),
            runnable -> new Thread(runnable, "producer").start()).get();
        SizeClassChunk first = (SizeClassChunk) TestAccess.magByteBuf(produced.get(0)).memory();
        Stripe stripe = (Stripe) first.lpMagazine();
        List<ByteBuf> ofFirst = produced.subList(0, first.segmentCount);
        for (int i = 0; i < ofFirst.size() - 1; i++) {
            ofFirst.get(i).release();
        }
        assertThat(first.lpMagazine()).as("retired before its last buffer came back").isSameAs(stripe);
        ofFirst.get(ofFirst.size() - 1).release();
        assertThat(first.lpMagazine()).as("the emptied chunk still held by the stripe").isNull();
        produced.get(produced.size() - 1).release();
    }

    @Test
    @Timeout(30)
    void aStripesParkedChunkIsRetiredByItsLastReleaseWhenTheOthersCameBackOnAnotherThread() throws Exception {
        // This thread fills a chunk and starts the next, so the first is parked full; another thread releases the
        // first half of its buffers (the remote queue), this thread the second half (its local list). The last
        // local release finds the others in the queue, collects them and retires the chunk.
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        List<ByteBuf> produced = fillOneChunkAndStartTheNext(oneStripe);
        SizeClassChunk first = (SizeClassChunk) TestAccess.magByteBuf(produced.get(0)).memory();
        Stripe stripe = (Stripe) first.lpMagazine();
        List<ByteBuf> ofFirst = produced.subList(0, first.segmentCount);
        int half = ofFirst.size() / 2;
        CompletableFuture.runAsync(() -> ofFirst.subList(0, half).forEach(ByteBuf::release),
            runnable -> new Thread(runnable, "consumer").start()).get();
        assertThat(first.remoteFrees.size()).as("after the first, collected under the lock").isEqualTo(half - 1);
        assertThat(first.freeCount).isEqualTo(1);
        for (int i = half; i < ofFirst.size() - 1; i++) {
            ofFirst.get(i).release();
        }
        assertThat(first.lpMagazine()).as("retired before its last buffer came back").isSameAs(stripe);
        ofFirst.get(ofFirst.size() - 1).release();
        assertThat(first.lpMagazine()).as("the emptied chunk still held by the stripe").isNull();
        produced.get(produced.size() - 1).release();
    }

    @Test
    @Timeout(30)
    void aStripesParkedChunkIsRetiredByItsLastRemoteReleaseWhenTheOthersCameBackLocally() throws Exception {
        // As above, the other way round: this thread releases the first half locally, another thread the rest; the
        // last remote release sees queue + local list = the whole chunk and retires it under the stripe's lock.
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        List<ByteBuf> produced = fillOneChunkAndStartTheNext(oneStripe);
        SizeClassChunk first = (SizeClassChunk) TestAccess.magByteBuf(produced.get(0)).memory();
        Stripe stripe = (Stripe) first.lpMagazine();
        List<ByteBuf> ofFirst = produced.subList(0, first.segmentCount);
        int half = ofFirst.size() / 2;
        ofFirst.subList(0, half).forEach(ByteBuf::release);
        assertThat(first.freeCount).isEqualTo(half);
        Object[] magazineAfter = new Object[2];
        CompletableFuture.runAsync(() -> {
            for (int i = half; i < ofFirst.size() - 1; i++) {
                ofFirst.get(i).release();
            }
            magazineAfter[0] = first.lpMagazine();
            ofFirst.get(ofFirst.size() - 1).release();
            magazineAfter[1] = first.lpMagazine();
        }, runnable -> new Thread(runnable, "consumer").start()).get();
        assertThat(magazineAfter[0]).as("retired before its last buffer came back").isSameAs(stripe);
        assertThat(magazineAfter[1]).as("the emptied chunk still held by the stripe").isNull();
        produced.get(produced.size() - 1).release();
    }

    /** On the calling thread: 256-byte buffers until one comes from a second chunk; the first is then parked full. */
    private static List<ByteBuf> fillOneChunkAndStartTheNext(MagazineByteBufAllocator allocator) {
        List<ByteBuf> bufs = new ArrayList<>();
        bufs.add(allocator.directBuffer(256));
        SizeClassChunk first = (SizeClassChunk) TestAccess.magByteBuf(bufs.get(0)).memory();
        while (TestAccess.magByteBuf(bufs.get(bufs.size() - 1)).memory() == first) {
            bufs.add(allocator.directBuffer(256));
        }
        assertThat(bufs).hasSize(first.segmentCount + 1);
        return bufs;
    }

    @Test
    @Timeout(30)
    void aStripeRemembersOnlyTheLastPlainThreadsObjectsAndTrimForgetsThem() throws Exception {
        // One stripe, two plain threads taking turns: each must get its own objects back, never the other's,
        // although the stripe remembers the object cache of whichever allocated last.
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        ByteBuf mine = oneStripe.directBuffer(256);
        MagByteBuf myObject = TestAccess.magByteBuf(mine);
        Stripe stripe = (Stripe) ((SizeClassChunk) myObject.memory()).lpMagazine();
        mine.release();
        assertThat(stripe.lastPlainThreadObjects.ownerThreadId).isEqualTo(Thread.currentThread().getId());

        AtomicInteger othersObjectWasMine = new AtomicInteger();
        WeakReference<?>[] othersObject = new WeakReference<?>[1];
        Thread other = new Thread(() -> {
            ByteBuf theirs = oneStripe.directBuffer(256);
            MagByteBuf object = TestAccess.magByteBuf(theirs);
            othersObject[0] = new WeakReference<>(object);
            if (object == myObject) {
                othersObjectWasMine.incrementAndGet();
            }
            theirs.release(); // kept on the other thread's spare stack
        }, "other-plain-thread");
        other.start();
        other.join();
        assertThat(othersObjectWasMine).as("a plain thread was handed another thread's released object").hasValue(0);
        assertThat(stripe.lastPlainThreadObjects.ownerThreadId).isEqualTo(other.getId());

        ByteBuf again = oneStripe.directBuffer(256);
        assertThat(TestAccess.magByteBuf(again)).as("this thread's own object, from its own cache").isSameAs(myObject);
        again.release();

        // The other thread is dead; once this thread took the stripe over, nothing refers to its cache. And trim()
        // drops whatever cache a stripe remembers.
        other = null;
        assertThat(stripe.lastPlainThreadObjects.ownerThreadId).isEqualTo(Thread.currentThread().getId());
        for (int i = 0; i < 50 && othersObject[0].get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(othersObject[0].get()).as("a dead plain thread's spare object still reachable").isNull();
        oneStripe.trim();
        assertThat(stripe.lastPlainThreadObjects).isNull();
    }

    @Test
    void objectsReleasedBeyondAFullSpareStackAreKeptForTheirHomeThread() {
        // More buffers released on their home thread than its spare stack holds: the rest wait in its returned
        // queue instead of going to the garbage collector, so the next allocations reuse every object.
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        int count = BufferObjectCache.SPARE_OBJECTS + 72;
        Set<MagByteBuf> objects = Collections.newSetFromMap(new IdentityHashMap<>());
        List<ByteBuf> bufs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            bufs.add(oneStripe.directBuffer(256));
            objects.add(TestAccess.magByteBuf(bufs.get(i)));
        }
        bufs.forEach(ByteBuf::release);
        bufs.clear();
        int reused = 0;
        for (int i = 0; i < count; i++) {
            bufs.add(oneStripe.directBuffer(256));
            if (objects.contains(TestAccess.magByteBuf(bufs.get(i)))) {
                reused++;
            }
        }
        bufs.forEach(ByteBuf::release);
        assertThat(reused).as("objects reused out of %d released on their home thread", count).isEqualTo(count);
    }

    @Test
    void plainThreadReleasesIntoAFreeStripeUnderItsLock() {
        // One stripe, no contention: the release takes the stripe's lock and frees locally (LIFO), so the next
        // allocation gets the same memory, and the same object back from this thread's object cache.
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        ByteBuf first = oneStripe.directBuffer(256);
        MagByteBuf object = TestAccess.magByteBuf(first);
        String memory = TestAccess.memoryIdentity(first);
        Stripe stripe = (Stripe) ((SizeClassChunk) object.memory()).lpMagazine();
        assertThat(stripe.lvOwnerThreadId()).as("plain threads use a shared magazine").isEqualTo(Magazine.NO_OWNER_THREAD);

        first.release();
        assertThat(stripe.tryLock()).as("the release gave the lock back").isTrue();
        stripe.unlock();

        ByteBuf second = oneStripe.directBuffer(256);
        assertThat(TestAccess.magByteBuf(second)).isSameAs(object);
        assertThat(TestAccess.memoryIdentity(second)).isEqualTo(memory);
        second.release();
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void releaseFindingTheStripeLockedWaitsForTheLockThenFinishesItself() throws Exception {
        // This thread holds the stripe's lock (as if allocating right now) while the thread that allocated a buffer
        // releases it: the release must not touch the chunk until the lock is free, and must then finish by itself
        // (nobody else will: this thread gives the lock back without looking for work).
        MagazineByteBufAllocator oneStripe = MagazineByteBufAllocator.builder().sharedMagazines(1).build();
        AtomicReference<MagByteBuf> object = new AtomicReference<>();
        CountDownLatch allocated = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch allocateAgain = new CountDownLatch(1);
        AtomicReference<Object> releaseOutcome = new AtomicReference<>();
        AtomicReference<MagByteBuf> nextObject = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                ByteBuf buf = oneStripe.directBuffer(256);
                object.set(TestAccess.magByteBuf(buf));
                allocated.countDown();
                release.await();
                releaseOutcome.set(buf.release());
                allocateAgain.await(); // not before the lock is free: the allocation would wait for it too
                ByteBuf next = oneStripe.directBuffer(256);
                nextObject.set(TestAccess.magByteBuf(next));
                next.release();
            } catch (Throwable t) {
                releaseOutcome.set(t);
            }
        }, "allocating thread");
        // If the release never returns, the test times out; this thread must not keep the JVM alive.
        owner.setDaemon(true);
        owner.start();
        allocated.await();
        SizeClassChunk chunk = (SizeClassChunk) object.get().memory();
        Stripe stripe = (Stripe) chunk.lpMagazine();
        int freeBefore = chunk.freeCount;

        stripe.lock();
        release.countDown();
        owner.join(200);
        assertThat(releaseOutcome.get()).as("the release waits while the lock is held").isNull();
        assertThat(chunk.freeCount).as("the busy stripe's local list is not touched").isEqualTo(freeBefore);
        assertThat(object.get().memory()).as("the object still holds its segment").isSameAs(chunk);
        stripe.unlock(); // the bare lock: no help with any work left for the holder
        allocateAgain.countDown();

        owner.join();
        assertThat(releaseOutcome.get()).isEqualTo(Boolean.TRUE);
        assertThat(stripe.tryLock()).as("the lock is free").isTrue();
        stripe.unlock();
        assertThat(chunk.freeCount).isEqualTo(freeBefore + 1);
        assertThat(object.get().memory()).as("released objects keep no memory reachable").isNull();
        assertThat(nextObject.get()).as("the object went back to its home thread").isSameAs(object.get());
    }

    // ------------------------------------------------------------------ metrics and trim

    @Test
    void metricsCountChunksPerSizeClassAndTrimGivesBackPooledSlabs() {
        int sizeClass = SizeClasses.indexOf(4096);
        int perChunk = SizeClasses.chunkSizeOf(sizeClass) / 4096;
        List<ByteBuf> bufs = new ArrayList<>();
        for (int i = 0; i < perChunk * 3; i++) {
            bufs.add(allocator.heapBuffer(4096));
        }
        assertThat(metric.activeChunks(false, sizeClass)).isEqualTo(3);
        assertThat(metric.chunkActivations(false, sizeClass)).isEqualTo(3);
        assertThat(metric.usedHeapMemory()).isEqualTo(3L * SizeClasses.chunkSizeOf(sizeClass));
        bufs.forEach(ByteBuf::release);
        // Shared magazine (this is a plain thread): the empty chunks wait for a scan or a trim.
        allocator.trim();
        assertThat(metric.activeChunks(false, sizeClass)).isZero();
        assertThat(metric.pooledFreeMemory(false)).isZero();
        assertThat(metric.usedHeapMemory()).isZero();
    }

    @Test
    void withDecayOffTheReusePoolKeepsNoMoreThanItsBudget() {
        // With decay on, the pool keeps up to twice its budget for a while: ReuseExcessTest.
        MagazineByteBufAllocator small = MagazineByteBufAllocator.builder().reuseBudgetBytes(128 * 1024).decayMillis(0)
            .build();
        MagazineByteBufAllocatorMetric m = small.metric();
        small.attachCurrentThread();
        try {
            int sizeClass = SizeClasses.indexOf(1024);
            int perChunk = SizeClasses.chunkSizeOf(sizeClass) / 1024;
            List<ByteBuf> bufs = new ArrayList<>();
            for (int i = 0; i < perChunk * 6; i++) {
                bufs.add(small.directBuffer(1024));
            }
            bufs.forEach(ByteBuf::release); // five non-current chunks empty out and are retired
            assertThat(m.pooledFreeMemory(true)).isEqualTo(128 * 1024);
            assertThat(m.usedDirectMemory()).isEqualTo(128 * 1024 + SizeClasses.chunkSizeOf(sizeClass));
            assertThat(m.slabsFreed(true)).isEqualTo(3);
        } finally {
            small.detachCurrentThread();
        }
    }

    @Test
    void configRejectsNonsense() {
        assertThatThrownBy(() -> MagazineByteBufAllocator.builder().reuseBudgetBytes(-1).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reuseBudgetBytes: -1");
        assertThatThrownBy(() -> MagazineByteBufAllocator.builder().sharedMagazines(3).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sharedMagazines: 3");
        assertThatThrownBy(() -> MagazineByteBufAllocator.builder().maxPooledSize(100).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPooledSize: 100");
        assertThatThrownBy(() -> MagazineByteBufAllocator.builder().maxLargeChunkSize(3_000_000).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxLargeChunkSize");
    }
}
