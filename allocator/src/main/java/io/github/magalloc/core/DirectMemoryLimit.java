package io.github.magalloc.core;

import io.netty.util.internal.PlatformDependent;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The JVM's direct memory limit as magalloc's slabs meet it, known before a slab is asked for (protocol 9 (making
 * room)). Asking for a slab that does not fit is what must not happen: the JDK's own counter answers a refusal
 * with {@code System.gc()} and sleeps of up to about half a second in all ({@code java.nio.Bits.reserveMemory}),
 * on the thread that asked, an event loop as often as not; Netty's counter refuses at once.
 *
 * <p>Which counter a slab is charged to depends on how Netty takes direct memory in this JVM: Netty's own (its
 * no-cleaner buffers; {@code malloc} through native access on JDK 24+), the JDK's ({@code ByteBuffer.allocateDirect}
 * on JDK 17 without {@code --add-opens java.base/java.nio}), or both (a shared arena on JDK 25). So a slab fits when
 * it fits under each of them that exists:
 * <pre>
 *   fits(bytes)  <=>  for each counter c:  c.used + inFlight + bytes <= c.max
 *   inFlight == bytes of the slabs magalloc threads are taking right now (reserved here, not yet counted by c)
 * </pre>
 * A counter a slab is not charged to holds only other code's memory, so checking it refuses only where the JVM as a
 * whole would pass its limit. {@link #tryReserve} is a CAS on {@code inFlight}, so two magalloc threads never both
 * take the last room; other code that takes direct memory between the check and the slab can still make the JDK
 * refuse (the allocator then gets the refusal after the JDK's wait, and makes room as for any refusal).
 *
 * <p>The JDK's counter is read through its {@code BufferPoolMXBean} (about 15 ms to look up once, when this class is
 * initialized by the first direct pool; a read is an atomic load), which needs no direct memory even on a full
 * limit. Without the {@code java.management} module it is not read, and a refusal is the only sign.
 */
final class DirectMemoryLimit {
    /** A counter direct memory is charged to, with its limit. */
    interface Counter {
        long used();

        long max();
    }

    /** This JVM's. */
    static final DirectMemoryLimit JVM = new DirectMemoryLimit(nettyCounter(), jdkCounter());

    private final Counter netty;
    private final Counter jdk;
    /** Bytes of slabs magalloc threads are taking now: reserved here first, counted by the counters after. */
    private final AtomicLong inFlight = new AtomicLong();

    /** Either counter may be null (it does not exist here). */
    DirectMemoryLimit(Counter netty, Counter jdk) {
        this.netty = netty;
        this.jdk = jdk;
    }

    /**
     * Reserves {@code bytes} for a slab about to be asked for if they fit under every counter; false if they would
     * pass the limit (the slab must not be asked for). A true answer must be followed by {@link #endReservation}
     * once the slab is taken or refused.
     */
    boolean tryReserve(long bytes) {
        long reserved;
        do {
            reserved = lvInFlight();
            if (!fits(netty, reserved + bytes) || !fits(jdk, reserved + bytes)) {
                return false;
            }
        } while (!casInFlight(reserved, reserved + bytes));
        return true;
    }

    /**
     * Whether {@code bytes} fit now, without reserving them; false where no counter can be read (only the system's
     * answer can tell then).
     */
    boolean fits(long bytes) {
        long more = lvInFlight() + bytes;
        return (netty != null || jdk != null) && fits(netty, more) && fits(jdk, more);
    }

    /** The slab reserved for is taken (its counters count it now) or was refused. */
    void endReservation(long bytes) {
        inFlight.addAndGet(-bytes);
    }

    /**
     * Whether {@code bytes} could ever fit if magalloc gave back all of its {@code magallocBytes}: false when other
     * code's memory alone leaves less room than that, and making room would be in vain.
     */
    boolean couldFit(long bytes, long magallocBytes) {
        return fits(netty, bytes - magallocBytes) && fits(jdk, bytes - magallocBytes);
    }

    private static boolean fits(Counter counter, long more) {
        return counter == null || counter.used() + more <= counter.max();
    }

    /** The limit, the smallest of the counters' (Netty's estimate of the JVM's if none can be read). */
    long max() {
        long max = Long.MAX_VALUE;
        if (netty != null) {
            max = netty.max();
        }
        if (jdk != null) {
            max = Math.min(max, jdk.max());
        }
        return max == Long.MAX_VALUE ? PlatformDependent.maxDirectMemory() : max;
    }

    /** Bytes in use as the fullest counter counts them, or -1 where no counter can be read. */
    long used() {
        long used = -1;
        long room = Long.MAX_VALUE;
        for (Counter counter : new Counter[] {netty, jdk}) {
            if (counter != null && counter.max() - counter.used() < room) {
                room = counter.max() - counter.used();
                used = counter.used();
            }
        }
        return used;
    }

    private long lvInFlight() {
        return inFlight.get();
    }

    /** Of two magalloc threads taking the last room, one reserves it. */
    private boolean casInFlight(long expect, long update) {
        return inFlight.compareAndSet(expect, update);
    }

    /** Netty's counter, where it keeps one ({@code usedDirectMemory()} is -1 where it does not). */
    private static Counter nettyCounter() {
        if (PlatformDependent.usedDirectMemory() < 0) {
            return null;
        }
        long max = PlatformDependent.maxDirectMemory();
        return new Counter() {
            @Override
            public long used() {
                return PlatformDependent.usedDirectMemory();
            }

            @Override
            public long max() {
                return max;
            }
        };
    }

    /** The JDK's counter ({@code java.nio.Bits}), through its buffer pool bean; null without java.management. */
    private static Counter jdkCounter() {
        try {
            return JdkCounter.find();
        } catch (LinkageError | RuntimeException e) {
            return null;
        }
    }

    /**
     * The only code that names {@code java.management}: in a runtime image without it, loading this class fails
     * (a {@link LinkageError} caught above), not where the pool is made.
     */
    private static final class JdkCounter implements Counter {
        private final BufferPoolMXBean direct;
        /** The JDK's limit, as Netty reads it: {@code -XX:MaxDirectMemorySize}, else the max heap. */
        private final long max = PlatformDependent.estimateMaxDirectMemory();

        private JdkCounter(BufferPoolMXBean direct) {
            this.direct = direct;
        }

        static Counter find() {
            for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
                if (pool.getName().equals("direct")) {
                    return new JdkCounter(pool);
                }
            }
            return null;
        }

        @Override
        public long used() {
            return direct.getMemoryUsed();
        }

        @Override
        public long max() {
            return max;
        }
    }
}
