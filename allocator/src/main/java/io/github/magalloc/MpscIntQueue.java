package io.github.magalloc;

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
 * that exist only because the array is rounded up to a power of two (Netty's #16023 forgot those on the first
 * lap). Capacity is enforced against the requested capacity, not the array length.
 */
final class MpscIntQueue extends MpscIntQueueConsumerFields {
    static final int EMPTY = -1;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(int[].class);

    MpscIntQueue(int capacity) {
        super(capacity);
    }

    /**
     * Adds {@code value} (which must be {@code >= 0}); any thread. Returns {@code false} only when
     * {@link #capacity()} values are already queued.
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

    /** Removes and returns the oldest value, or {@link #EMPTY}; owner (single consumer) only. */
    int poll() {
        long index = lpConsumerIndex();
        int offset = (int) (index & mask);
        int value = (int) SLOT.getAcquire(slots, offset);
        if (value == EMPTY) {
            return EMPTY;
        }
        slots[offset] = EMPTY;
        soConsumerIndex(index + 1);
        return value;
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

    /** True when no value is published at the head; any thread, a snapshot. */
    boolean isEmpty() {
        return lvConsumerIndex() == lvProducerIndex();
    }

    /**
     * Values claimed by producers and not yet consumed; any thread, a snapshot. Not capped at the capacity: a queue
     * that let more in than its capacity shows it here.
     */
    int size() {
        long consumer = lvConsumerIndex();
        long producer = lvProducerIndex();
        return (int) Math.max(0, producer - consumer);
    }

    int capacity() {
        return capacity;
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

/** Padding keeps the producers' hot fields off the cache line of the read-mostly fields. */
abstract class MpscIntQueuePad1 extends MpscIntQueueBase {
    long p01, p02, p03, p04, p05, p06, p07, p08;

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

abstract class MpscIntQueuePad2 extends MpscIntQueueProducerFields {
    long p11, p12, p13, p14, p15, p16, p17, p18;

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
