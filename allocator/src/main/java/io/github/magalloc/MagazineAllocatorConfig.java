package io.github.magalloc;

import io.github.magalloc.core.PoolSettings;
import io.github.magalloc.core.SizeClasses;
import io.netty.util.internal.SystemPropertyUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.function.IntFunction;
import java.util.function.LongFunction;

/**
 * Every tunable of {@link MagazineByteBufAllocator}, with its default. Each default can be overridden by a
 * {@code magalloc.*} system property; {@code docs/tuning.md} explains each one. Immutable; build one with
 * {@link MagazineByteBufAllocator#builder()}.
 *
 * <p>The builder rejects a bad value with an {@link IllegalArgumentException} that names the setting and the
 * allowed range. A bad system property is different: it is read when this class loads, on behalf of every
 * allocator including {@link MagazineByteBufAllocator#DEFAULT}, so throwing would make the class unusable. It is
 * logged as a warning and the built-in default is used instead, as Netty does with its own properties.
 */
public final class MagazineAllocatorConfig {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(MagazineAllocatorConfig.class);

    private static final long BUILT_IN_REUSE_BUDGET_BYTES = 16L * 1024 * 1024;
    private static final int BUILT_IN_MAX_POOLED_SIZE = 1024 * 1024;
    private static final int BUILT_IN_MAX_LARGE_CHUNK_SIZE = 8 * 1024 * 1024;
    private static final long BUILT_IN_DECAY_MILLIS = 1000;
    private static final long BUILT_IN_NATIVE_TRIM_MILLIS = 1000;
    /** One hour: a longer period gives nothing back in any time an operator waits for. */
    static final long MAX_DECAY_MILLIS = 3_600_000;
    /** One hour, for the same reason. */
    static final long MAX_NATIVE_TRIM_MILLIS = 3_600_000;

    static final boolean DEFAULT_PREFER_DIRECT =
        SystemPropertyUtil.getBoolean("magalloc.preferDirect", true);
    static final long DEFAULT_REUSE_BUDGET_BYTES = longProperty("magalloc.reuseBudgetBytes",
        BUILT_IN_REUSE_BUDGET_BYTES, MagazineAllocatorConfig::checkReuseBudgetBytes);
    static final int DEFAULT_MAX_LARGE_CHUNK_SIZE = intProperty("magalloc.maxLargeChunkSize",
        BUILT_IN_MAX_LARGE_CHUNK_SIZE, MagazineAllocatorConfig::checkMaxLargeChunkSize);
    static final int DEFAULT_MAX_POOLED_SIZE = intProperty("magalloc.maxPooledSize",
        Math.min(BUILT_IN_MAX_POOLED_SIZE, DEFAULT_MAX_LARGE_CHUNK_SIZE),
        size -> checkMaxPooledSize(size, DEFAULT_MAX_LARGE_CHUNK_SIZE));
    static final int DEFAULT_SHARED_MAGAZINES = intProperty("magalloc.sharedMagazines",
        Math.min(16, ceilPow2(Runtime.getRuntime().availableProcessors())),
        MagazineAllocatorConfig::checkSharedMagazines);
    static final boolean DEFAULT_THREAD_LOCAL_FOR_ALL_THREADS =
        SystemPropertyUtil.getBoolean("magalloc.threadLocalMagazinesForAllThreads", false);
    static final long DEFAULT_DECAY_MILLIS = longProperty("magalloc.decayMillis", BUILT_IN_DECAY_MILLIS,
        MagazineAllocatorConfig::checkDecayMillis);
    static final long DEFAULT_NATIVE_TRIM_MILLIS = longProperty("magalloc.nativeTrimMillis",
        BUILT_IN_NATIVE_TRIM_MILLIS, MagazineAllocatorConfig::checkNativeTrimMillis);
    static final boolean DEFAULT_DEBUG = SystemPropertyUtil.getBoolean("magalloc.debug", false);

    private final boolean preferDirect;
    private final long reuseBudgetBytes;
    private final int maxPooledSize;
    private final int maxLargeChunkSize;
    private final int sharedMagazines;
    private final boolean threadLocalMagazinesForAllThreads;
    private final long decayMillis;
    private final long nativeTrimMillis;
    private final boolean debug;

    MagazineAllocatorConfig(Builder b) {
        throwIfInvalid(checkReuseBudgetBytes(b.reuseBudgetBytes));
        throwIfInvalid(checkMaxLargeChunkSize(b.maxLargeChunkSize));
        throwIfInvalid(checkMaxPooledSize(b.maxPooledSize, b.maxLargeChunkSize));
        throwIfInvalid(checkSharedMagazines(b.sharedMagazines));
        throwIfInvalid(checkDecayMillis(b.decayMillis));
        throwIfInvalid(checkNativeTrimMillis(b.nativeTrimMillis));
        this.preferDirect = b.preferDirect;
        this.reuseBudgetBytes = b.reuseBudgetBytes;
        this.maxPooledSize = b.maxPooledSize;
        this.maxLargeChunkSize = b.maxLargeChunkSize;
        this.sharedMagazines = b.sharedMagazines;
        this.threadLocalMagazinesForAllThreads = b.threadLocalMagazinesForAllThreads;
        this.decayMillis = b.decayMillis;
        this.nativeTrimMillis = b.nativeTrimMillis;
        this.debug = b.debug;
    }

    static int ceilPow2(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    // ------------------------------------------------------------------ the rules: null when valid, else why not

    static String checkReuseBudgetBytes(long bytes) {
        return bytes >= 0 ? null : "reuseBudgetBytes: " + bytes + " (expected: >= 0)";
    }

    static String checkMaxLargeChunkSize(int bytes) {
        return bytes >= SizeClasses.MAX_CHUNK_SIZE && Integer.bitCount(bytes) == 1 && bytes <= 1 << 30 ? null
            : "maxLargeChunkSize: " + bytes + " (expected: a power of two from " + SizeClasses.MAX_CHUNK_SIZE
              + " to 2^30)";
    }

    static String checkMaxPooledSize(int bytes, int maxLargeChunkSize) {
        return bytes >= SizeClasses.MAX_SIZE && bytes <= maxLargeChunkSize ? null
            : "maxPooledSize: " + bytes + " (expected: " + SizeClasses.MAX_SIZE + " to maxLargeChunkSize "
              + maxLargeChunkSize + ")";
    }

    static String checkSharedMagazines(int count) {
        return count >= 1 && Integer.bitCount(count) == 1 && count <= 1024 ? null
            : "sharedMagazines: " + count + " (expected: a power of two from 1 to 1024)";
    }

    static String checkDecayMillis(long millis) {
        return millis >= 0 && millis <= MAX_DECAY_MILLIS ? null
            : "decayMillis: " + millis + " (expected: 0 (off) to " + MAX_DECAY_MILLIS + ")";
    }

    static String checkNativeTrimMillis(long millis) {
        return millis >= 0 && millis <= MAX_NATIVE_TRIM_MILLIS ? null
            : "nativeTrimMillis: " + millis + " (expected: 0 (off) to " + MAX_NATIVE_TRIM_MILLIS + ")";
    }

    /** A system property's value if it follows its rule, else (with a warning) the built-in default. */
    private static long longProperty(String name, long builtIn, LongFunction<String> rule) {
        long value = SystemPropertyUtil.getLong(name, builtIn);
        String problem = rule.apply(value);
        if (problem == null) {
            return value;
        }
        logger.warn("Ignoring -D{}={}: {}; using {}", name, value, problem, builtIn);
        return builtIn;
    }

    private static int intProperty(String name, int builtIn, IntFunction<String> rule) {
        int value = SystemPropertyUtil.getInt(name, builtIn);
        String problem = rule.apply(value);
        if (problem == null) {
            return value;
        }
        logger.warn("Ignoring -D{}={}: {}; using {}", name, value, problem, builtIn);
        return builtIn;
    }

    private static void throwIfInvalid(String problem) {
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
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

    public boolean threadLocalMagazinesForAllThreads() {
        return threadLocalMagazinesForAllThreads;
    }

    public long decayMillis() {
        return decayMillis;
    }

    public long nativeTrimMillis() {
        return nativeTrimMillis;
    }

    public boolean debug() {
        return debug;
    }

    /** What each of the two memory pools is built with. */
    PoolSettings poolSettings() {
        return new PoolSettings(reuseBudgetBytes, maxPooledSize, maxLargeChunkSize, sharedMagazines,
            threadLocalMagazinesForAllThreads, decayMillis, nativeTrimMillis, debug);
    }

    @Override
    public String toString() {
        return "MagazineAllocatorConfig{preferDirect=" + preferDirect + ", reuseBudgetBytes=" + reuseBudgetBytes
            + ", maxPooledSize=" + maxPooledSize + ", maxLargeChunkSize=" + maxLargeChunkSize
            + ", sharedMagazines=" + sharedMagazines
            + ", threadLocalMagazinesForAllThreads=" + threadLocalMagazinesForAllThreads + ", decayMillis=" + decayMillis
            + ", nativeTrimMillis=" + nativeTrimMillis + ", debug=" + debug + '}';
    }

    /** Builds a {@link MagazineByteBufAllocator}; starts from the defaults (and their system properties). */
    public static final class Builder {
        private boolean preferDirect = DEFAULT_PREFER_DIRECT;
        private long reuseBudgetBytes = DEFAULT_REUSE_BUDGET_BYTES;
        private int maxPooledSize = DEFAULT_MAX_POOLED_SIZE;
        private int maxLargeChunkSize = DEFAULT_MAX_LARGE_CHUNK_SIZE;
        private int sharedMagazines = DEFAULT_SHARED_MAGAZINES;
        private boolean threadLocalMagazinesForAllThreads = DEFAULT_THREAD_LOCAL_FOR_ALL_THREADS;
        private long decayMillis = DEFAULT_DECAY_MILLIS;
        private long nativeTrimMillis = DEFAULT_NATIVE_TRIM_MILLIS;
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

        /** Give every platform thread its own magazine, not only event-loop threads; virtual threads never get one. */
        public Builder threadLocalMagazinesForAllThreads(boolean enabled) {
            this.threadLocalMagazinesForAllThreads = enabled;
            return this;
        }

        /**
         * Period of the decay tick of an event loop's magazine, in milliseconds; 0 turns it off. Memory the loop's
         * magazine holds beyond its live buffers goes back to the reuse pool within two periods of its release,
         * whether or not the loop keeps allocating.
         */
        public Builder decayMillis(long millis) {
            this.decayMillis = millis;
            return this;
        }

        /**
         * Least time between two trims of the C allocator's heap, in milliseconds; 0 turns them off. After direct
         * memory went back to the C allocator, its heap is trimmed on a background thread, so that the process's
         * resident memory follows what the allocator holds (glibc keeps freed blocks otherwise).
         */
        public Builder nativeTrimMillis(long millis) {
            this.nativeTrimMillis = millis;
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
