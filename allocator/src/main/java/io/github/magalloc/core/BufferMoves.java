package io.github.magalloc.core;

import io.github.magalloc.buffer.MagByteBuf;

/**
 * A buffer that changes capacity: growth moves it to larger memory with room for its next doubling, a shrink gives
 * memory back in place (a large buffer's run of pages) or by a move to smaller memory. A move allocates, copies, then
 * frees the old memory, in that order, so a failed allocation loses nothing and no byte is read from freed memory.
 */
final class BufferMoves {
    /**
     * Largest capacity a buffer grows to with room reserved for its next doubling ({@link #reservationForGrowth}):
     * so a grown buffer holds about 8 KiB it did not ask for at most, and growth stays within the size classes.
     */
    static final int GROWTH_RESERVE_LIMIT = 8 * 1024;

    /** Where a moving buffer's new memory comes from: the pool's allocation, not counted as a user's request. */
    interface NewMemory {
        MagByteBuf allocateForMove(int capacity, int maxCapacity);
    }

    private final NewMemory newMemory;
    /** Above this, a buffer has memory of its own (a huge chunk), exactly its capacity. */
    private final int maxPooledSize;

    BufferMoves(NewMemory newMemory, int maxPooledSize) {
        this.newMemory = newMemory;
        this.maxPooledSize = maxPooledSize;
    }

    /** Moves {@code buf} to memory of at least {@code newCapacity} bytes, with room to grow on. */
    void grow(MagByteBuf buf, int newCapacity) {
        moveTo(buf, reservationForGrowth(buf, newCapacity), Math.min(buf.capacity(), newCapacity));
    }

    /**
     * The shrink's rule (protocol 6a (shrinking)): memory is given back only where at most half of what {@code buf}
     * reserves holds {@code newCapacity}. A large buffer keeps a run of its pages in place, with no copy, where the
     * run wastes at most a quarter of {@code newCapacity} (always so above the size classes); any other buffer moves
     * to the smallest memory that holds {@code newCapacity}, with its first {@code newCapacity} bytes (Netty's
     * contract: a shrink truncates the content).
     */
    void shrink(MagByteBuf buf, int newCapacity) {
        int half = buf.reservedBytes() >>> 1;
        if (buf.memory() instanceof LargeChunk) {
            int run = LargeChunk.runBytes(Math.max(1, newCapacity));
            if (run <= half && run - newCapacity <= newCapacity >>> 2) {
                ((LargeChunk) buf.memory()).shrink(buf, run);
                return;
            }
        }
        if (bytesFor(newCapacity) <= half) {
            moveTo(buf, newCapacity, newCapacity);
        }
    }

    /** Bytes a buffer of {@code capacity} takes: its size class, whole pages, or, above the pooling limit, itself. */
    private int bytesFor(int capacity) {
        if (capacity <= SizeClasses.MAX_SIZE) {
            return SizeClasses.sizeOf(SizeClasses.indexOf(capacity));
        }
        return capacity <= maxPooledSize ? LargeChunk.runBytes(capacity) : capacity;
    }

    /**
     * Moves {@code buf} to new memory of {@code capacity} bytes, keeping its first {@code bytes} bytes. The old memory
     * goes back through the temporary object the new memory came with, without the reference count's CAS: no other
     * code has seen that object.
     */
    private void moveTo(MagByteBuf buf, int capacity, int bytes) {
        MagByteBuf fresh = newMemory.allocateForMove(capacity, buf.maxCapacity());
        buf.copyContentTo(fresh, 0, bytes);
        buf.swapMemory(fresh);
        boolean slotsSwapped = SizeClassChunk.swapSlots(buf, fresh);
        fresh.freeUnshared();
        if (!slotsSwapped) {
            SizeClassChunk.returnToSlot(fresh, buf);
        }
    }

    /**
     * Bytes to reserve for {@code buf} growing to {@code newCapacity}: twice that, up to
     * {@link #GROWTH_RESERVE_LIMIT}, so that the next doubling of {@code ensureWritable} (Netty's
     * {@code calculateNewCapacity} doubles up to 4 MiB) fits in place and a growing buffer moves every other time
     * only. Never beyond the buffer's max capacity, whose memory could not be used.
     */
    private static int reservationForGrowth(MagByteBuf buf, int newCapacity) {
        if (newCapacity > GROWTH_RESERVE_LIMIT) {
            return newCapacity;
        }
        // max: with Netty's -Dio.netty.buffer.checkBounds=false, capacity(n) does not check n against maxCapacity,
        // and the new memory must still hold n bytes.
        return Math.max(newCapacity, Math.min(2 * newCapacity, buf.maxCapacity()));
    }
}
