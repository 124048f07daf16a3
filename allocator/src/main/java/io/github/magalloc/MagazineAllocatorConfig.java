package io.github.magalloc;

import io.netty.util.internal.SystemPropertyUtil;

/**
 * Every tunable of {@link MagazineByteBufAllocator}, with its default. Each default can be overridden by a
 * {@code magalloc.*} system property; {@code docs/tuning.md} explains each one. Immutable; build one with
 * {@link MagazineByteBufAllocator#builder()}.
 */
public final class MagazineAllocatorConfig {
    static final boolean DEFAULT_PREFER_DIRECT =
        SystemPropertyUtil.getBoolean("magalloc.preferDirect", true);
    static final long DEFAULT_REUSE_BUDGET_BYTES =
        SystemPropertyUtil.getLong("magalloc.reuseBudgetBytes", 16L * 1024 * 1024);
    static final int DEFAULT_MAX_POOLED_SIZE =
        SystemPropertyUtil.getInt("magalloc.maxPooledSize", 1024 * 1024);
    static final int DEFAULT_MAX_LARGE_CHUNK_SIZE =
        SystemPropertyUtil.getInt("magalloc.maxLargeChunkSize", 8 * 1024 * 1024);
    static final int DEFAULT_SHARED_MAGAZINES =
        SystemPropertyUtil.getInt("magalloc.sharedMagazines",
            Math.min(16, ceilPow2(Runtime.getRuntime().availableProcessors())));
    static final int DEFAULT_SHARED_BUFFER_OBJECTS =
        SystemPropertyUtil.getInt("magalloc.sharedBufferObjects", 4096);
    static final boolean DEFAULT_THREAD_LOCAL_FOR_ALL_THREADS =
        SystemPropertyUtil.getBoolean("magalloc.threadLocalMagazinesForAllThreads", false);
    static final boolean DEFAULT_DEBUG = SystemPropertyUtil.getBoolean("magalloc.debug", false);

    private final boolean preferDirect;
    private final long reuseBudgetBytes;
    private final int maxPooledSize;
    private final int maxLargeChunkSize;
    private final int sharedMagazines;
    private final int sharedBufferObjects;
    private final boolean threadLocalMagazinesForAllThreads;
    private final boolean debug;

    MagazineAllocatorConfig(Builder b) {
        if (b.reuseBudgetBytes < 0) {
            throw new IllegalArgumentException("reuseBudgetBytes: " + b.reuseBudgetBytes + " (expected: >= 0)");
        }
        if (b.maxLargeChunkSize < SizeClasses.MAX_CHUNK_SIZE || Integer.bitCount(b.maxLargeChunkSize) != 1
            || b.maxLargeChunkSize > 1 << 30) {
            throw new IllegalArgumentException("maxLargeChunkSize: " + b.maxLargeChunkSize
                + " (expected: a power of two from " + SizeClasses.MAX_CHUNK_SIZE + " to 2^30)");
        }
        if (b.maxPooledSize < SizeClasses.MAX_SIZE || b.maxPooledSize > b.maxLargeChunkSize) {
            throw new IllegalArgumentException("maxPooledSize: " + b.maxPooledSize + " (expected: "
                + SizeClasses.MAX_SIZE + " to maxLargeChunkSize " + b.maxLargeChunkSize + ")");
        }
        if (b.sharedMagazines < 1 || Integer.bitCount(b.sharedMagazines) != 1 || b.sharedMagazines > 1024) {
            throw new IllegalArgumentException("sharedMagazines: " + b.sharedMagazines
                + " (expected: a power of two from 1 to 1024)");
        }
        if (b.sharedBufferObjects < 2) {
            throw new IllegalArgumentException("sharedBufferObjects: " + b.sharedBufferObjects
                + " (expected: >= 2)");
        }
        this.preferDirect = b.preferDirect;
        this.reuseBudgetBytes = b.reuseBudgetBytes;
        this.maxPooledSize = b.maxPooledSize;
        this.maxLargeChunkSize = b.maxLargeChunkSize;
        this.sharedMagazines = b.sharedMagazines;
        this.sharedBufferObjects = b.sharedBufferObjects;
        this.threadLocalMagazinesForAllThreads = b.threadLocalMagazinesForAllThreads;
        this.debug = b.debug;
    }

    static int ceilPow2(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    public boolean preferDirect() {
        return preferDirect;
    }

    public long reuseBudgetBytes() {
        return reuseBudgetBytes;
    }

    public int maxPooledSize() {
        return maxPooledSize;
    }

    public int maxLargeChunkSize() {
        return maxLargeChunkSize;
    }

    public int sharedMagazines() {
        return sharedMagazines;
    }

    public int sharedBufferObjects() {
        return sharedBufferObjects;
    }

    public boolean threadLocalMagazinesForAllThreads() {
        return threadLocalMagazinesForAllThreads;
    }

    public boolean debug() {
        return debug;
    }

    @Override
    public String toString() {
        return "MagazineAllocatorConfig{preferDirect=" + preferDirect + ", reuseBudgetBytes=" + reuseBudgetBytes
            + ", maxPooledSize=" + maxPooledSize + ", maxLargeChunkSize=" + maxLargeChunkSize
            + ", sharedMagazines=" + sharedMagazines + ", sharedBufferObjects=" + sharedBufferObjects
            + ", threadLocalMagazinesForAllThreads=" + threadLocalMagazinesForAllThreads + ", debug=" + debug + '}';
    }

    /** Builds a {@link MagazineByteBufAllocator}; starts from the defaults (and their system properties). */
    public static final class Builder {
        private boolean preferDirect = DEFAULT_PREFER_DIRECT;
        private long reuseBudgetBytes = DEFAULT_REUSE_BUDGET_BYTES;
        private int maxPooledSize = DEFAULT_MAX_POOLED_SIZE;
        private int maxLargeChunkSize = DEFAULT_MAX_LARGE_CHUNK_SIZE;
        private int sharedMagazines = DEFAULT_SHARED_MAGAZINES;
        private int sharedBufferObjects = DEFAULT_SHARED_BUFFER_OBJECTS;
        private boolean threadLocalMagazinesForAllThreads = DEFAULT_THREAD_LOCAL_FOR_ALL_THREADS;
        private boolean debug = DEFAULT_DEBUG;

        Builder() {
        }

        /** Whether {@code buffer()} returns direct buffers. */
        public Builder preferDirect(boolean preferDirect) {
            this.preferDirect = preferDirect;
            return this;
        }

        /** Bytes of empty slabs kept for reuse, per memory type (heap and direct each). */
        public Builder reuseBudgetBytes(long bytes) {
            this.reuseBudgetBytes = bytes;
            return this;
        }

        /** Largest request that is pooled; larger ones get memory of their own, freed on release. */
        public Builder maxPooledSize(int bytes) {
            this.maxPooledSize = bytes;
            return this;
        }

        /** Largest slab cut for requests above the size classes (a power of two). */
        public Builder maxLargeChunkSize(int bytes) {
            this.maxLargeChunkSize = bytes;
            return this;
        }

        /** Number of shared magazines (a power of two) for threads without their own. */
        public Builder sharedMagazines(int count) {
            this.sharedMagazines = count;
            return this;
        }

        /** Buffer objects kept for reuse after release on a foreign thread, per memory type. */
        public Builder sharedBufferObjects(int count) {
            this.sharedBufferObjects = count;
            return this;
        }

        /** Give every thread its own magazine, not only event-loop threads. */
        public Builder threadLocalMagazinesForAllThreads(boolean enabled) {
            this.threadLocalMagazinesForAllThreads = enabled;
            return this;
        }

        /** Poison freed memory and never recycle buffer objects, so stale references fail loudly. */
        public Builder debug(boolean enabled) {
            this.debug = enabled;
            return this;
        }

        public MagazineAllocatorConfig config() {
            return new MagazineAllocatorConfig(this);
        }

        public MagazineByteBufAllocator build() {
            return new MagazineByteBufAllocator(config());
        }
    }
}
