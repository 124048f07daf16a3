package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A bounded multi-producer, single-consumer queue of non-negative ints: the way segments released on a foreign
 * thread travel back to the chunk's owner.
 *
 * <p>Memory order is in the names, as in JCTools: {@code lv}/{@code sv} volatile, {@code so} ordered (release),
 * {@code lp}/{@code sp} plain, {@code cas} atomic. Producers claim a slot with one CAS on the producer index, then
 * publish the value with an ordered store. The single consumer reads a slot with an acquire load; {@link #EMPTY}
 * means "nothing published there yet", so a claimed-but-unpublished slot simply ends a drain early.
 *
 * <p>Every slot of the backing array starts as {@link #EMPTY}, including the slots past the requested capacity
 * that exist only because the array is rounded up to a power of two: on the first lap a consumer reads them before
 * any producer wrote them, and a 0 there would be a value invented. Capacity is enforced against the requested
 * capacity, not the array length.
 */
final class MpscIntQueue extends MpscIntQueueConsumerFields {
    static final int EMPTY = -1;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(int[].class);

    MpscIntQueue(int capacity) {
        super(capacity);
    }

    /**
     * Adds {@code value} (which must be {@code >= 0}); any thread. Returns {@code false} only when
     * {@code capacity} values are already queued.
     */
    boolean offer(int value) {
        assert value >= 0 : value;
        long index;
        do {
            index = lvProducerIndex();
            if (index >= lvProducerLimit() && !refreshProducerLimit(index)) {
                return false;
            }
        } while (!casProducerIndex(index, index + 1));
        // Release store: the value is published only after the slot was claimed and everything the producer
        // wrote before (the buffer's contents, for instance) is visible to the consumer.
        SLOT.setRelease(slots, (int) (index & mask), value);
        return true;
    }

    /** Slow part of {@link #offer}: re-reads the consumer index, the only way a full queue makes room. */
    private boolean refreshProducerLimit(long producerIndex) {
        long limit = lvConsumerIndex() + capacity;
        if (producerIndex >= limit) {
            return false;
        }
        // Racy but benign: another producer may store an older limit; the next offer then refreshes again.
        // Ordered store, read with a volatile load: a producer trusting a limit cached by another producer then
        // also sees the consumer's EMPTY stores that this producer saw through the consumer index.
        soProducerLimit(limit);
        return true;
    }

    /**
     * Moves up to {@code max} values into {@code target[from...]} in queue order; owner only. Returns how many were
     * moved. One ordered store of the consumer index covers the whole batch.
     */
    int drainTo(int[] target, int from, int max) {
        long index = lpConsumerIndex();
        int moved = 0;
        while (moved < max) {
            int offset = (int) ((index + moved) & mask);
            int value = (int) SLOT.getAcquire(slots, offset);
            if (value == EMPTY) {
                break;
            }
            slots[offset] = EMPTY;
            target[from + moved] = value;
            moved++;
        }
        if (moved > 0) {
            soConsumerIndex(index + moved);
        }
        return moved;
    }

    /**
     * Owner only: values claimed by producers and not consumed yet, published or not. The producer index is read
     * volatile, so a claim ordered before this read is counted even where its value is not visible yet.
     */
    int claimedCount() {
        return (int) (lvProducerIndex() - lpConsumerIndex());
    }

    /** True when no value is published at the head; any thread, a snapshot. */
    boolean isEmpty() {
        return lvConsumerIndex() == lvProducerIndex();
    }

    /**
     * Values claimed by producers and not yet consumed; any thread, a snapshot taken at the moment the producer
     * index is read. The consumer index is read before and after it until both reads agree (it only grows, so equal
     * reads mean it held still in between): {@code producer - consumer <= capacity} holds at every instant, so the
     * result is at most the capacity on any interleaving. A single read of each index on either side would not be:
     * the consumer index read before a drain and the producer index after the refills that follow it count the
     * drained values twice. Not capped: a queue that let more in than its capacity shows it here.
     */
    int size() {
        long consumer = lvConsumerIndex();
        while (true) {
            long producer = lvProducerIndex();
            long consumerAfter = lvConsumerIndex();
            if (consumerAfter == consumer) {
                return (int) Math.max(0, producer - consumer);
            }
            consumer = consumerAfter;
        }
    }
}

/** The array and the fields every thread reads but nobody writes after construction. */
abstract class MpscIntQueueBase {
    final int[] slots;
    final int mask;
    final int capacity;

    MpscIntQueueBase(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: > 0)");
        }
        int length = capacity == 1 ? 1 : Integer.highestOneBit(capacity - 1) << 1;
        this.slots = new int[length];
        Arrays.fill(slots, MpscIntQueue.EMPTY);
        this.mask = length - 1;
        this.capacity = capacity;
    }
}

/** Keeps the producers' index off the lines of the read-mostly fields ({@link CacheLinePadding}'s rule). */
abstract class MpscIntQueuePad1 extends MpscIntQueueBase {
    byte q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015;
    byte q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111, q112, q113, q114, q115;
    byte q200, q201, q202, q203, q204, q205, q206, q207, q208, q209, q210, q211, q212, q213, q214, q215;
    byte q300, q301, q302, q303, q304, q305, q306, q307, q308, q309, q310, q311, q312, q313, q314, q315;
    byte q400, q401, q402, q403, q404, q405, q406, q407, q408, q409, q410, q411, q412, q413, q414, q415;
    byte q500, q501, q502, q503, q504, q505, q506, q507, q508, q509, q510, q511, q512, q513, q514, q515;
    byte q600, q601, q602, q603, q604, q605, q606, q607, q608, q609, q610, q611, q612, q613, q614, q615;
    byte q700, q701, q702, q703, q704, q705, q706, q707, q708, q709, q710, q711, q712, q713, q714, q715;

    MpscIntQueuePad1(int capacity) {
        super(capacity);
    }
}

/** Written by producers. */
abstract class MpscIntQueueProducerFields extends MpscIntQueuePad1 {
    private static final VarHandle PRODUCER_INDEX;
    private static final VarHandle PRODUCER_LIMIT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PRODUCER_INDEX = lookup.findVarHandle(MpscIntQueueProducerFields.class, "producerIndex", long.class);
            PRODUCER_LIMIT = lookup.findVarHandle(MpscIntQueueProducerFields.class, "producerLimit", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long producerIndex;
    /** Cached {@code consumerIndex + capacity}: producers read the consumer's line only when they reach it. */
    private volatile long producerLimit;

    MpscIntQueueProducerFields(int capacity) {
        super(capacity);
        producerLimit = capacity;
    }

    final long lvProducerIndex() {
        return producerIndex;
    }

    final boolean casProducerIndex(long expect, long update) {
        return PRODUCER_INDEX.compareAndSet(this, expect, update);
    }

    final long lvProducerLimit() {
        return producerLimit;
    }

    final void soProducerLimit(long limit) {
        PRODUCER_LIMIT.setRelease(this, limit);
    }
}

/** Keeps the consumer's index off the producers' lines ({@link CacheLinePadding}'s rule). */
abstract class MpscIntQueuePad2 extends MpscIntQueueProducerFields {
    byte r000, r001, r002, r003, r004, r005, r006, r007, r008, r009, r010, r011, r012, r013, r014, r015;
    byte r100, r101, r102, r103, r104, r105, r106, r107, r108, r109, r110, r111, r112, r113, r114, r115;
    byte r200, r201, r202, r203, r204, r205, r206, r207, r208, r209, r210, r211, r212, r213, r214, r215;
    byte r300, r301, r302, r303, r304, r305, r306, r307, r308, r309, r310, r311, r312, r313, r314, r315;
    byte r400, r401, r402, r403, r404, r405, r406, r407, r408, r409, r410, r411, r412, r413, r414, r415;
    byte r500, r501, r502, r503, r504, r505, r506, r507, r508, r509, r510, r511, r512, r513, r514, r515;
    byte r600, r601, r602, r603, r604, r605, r606, r607, r608, r609, r610, r611, r612, r613, r614, r615;
    byte r700, r701, r702, r703, r704, r705, r706, r707, r708, r709, r710, r711, r712, r713, r714, r715;

    MpscIntQueuePad2(int capacity) {
        super(capacity);
    }
}

/** Written by the consumer only. */
abstract class MpscIntQueueConsumerFields extends MpscIntQueuePad2 {
    private static final VarHandle CONSUMER_INDEX;

    static {
        try {
            CONSUMER_INDEX = MethodHandles.lookup()
                .findVarHandle(MpscIntQueueConsumerFields.class, "consumerIndex", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long consumerIndex;

    MpscIntQueueConsumerFields(int capacity) {
        super(capacity);
    }

    final long lvConsumerIndex() {
        return consumerIndex;
    }

    final long lpConsumerIndex() {
        return (long) CONSUMER_INDEX.get(this);
    }

    final void soConsumerIndex(long index) {
        CONSUMER_INDEX.setRelease(this, index);
    }
}
