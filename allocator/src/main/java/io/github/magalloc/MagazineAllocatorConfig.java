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
        int maxPooled = b.maxPooledSizeSet ? b.maxPooledSize : Math.min(b.maxPooledSize, b.maxLargeChunkSize);
        throwIfInvalid(checkMaxPooledSize(maxPooled, b.maxLargeChunkSize));
        throwIfInvalid(checkSharedMagazines(b.sharedMagazines));
        throwIfInvalid(checkDecayMillis(b.decayMillis));
        throwIfInvalid(checkNativeTrimMillis(b.nativeTrimMillis));
        this.preferDirect = b.preferDirect;
        this.reuseBudgetBytes = b.reuseBudgetBytes;
        this.maxPooledSize = maxPooled;
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

    /**
     * Whether {@code buffer()} is to return direct buffers, as requested: Netty returns heap buffers instead where it
     * cannot free direct memory reliably.
     *
     * @return true for direct buffers by default, false for heap; see {@link Builder#preferDirect(boolean)}
     */
    public boolean preferDirect() {
        return preferDirect;
    }

    /**
     * The reuse pool's byte budget, per memory type.
     *
     * @return bytes of empty slabs each pool (heap, direct) keeps for reuse, 0 or more; see
     *         {@link Builder#reuseBudgetBytes(long)}
     */
    public long reuseBudgetBytes() {
        return reuseBudgetBytes;
    }

    /**
     * The largest pooled request.
     *
     * @return the largest initial capacity, in bytes, served from pooled memory: from 32,768 to
     *         {@link #maxLargeChunkSize()}; see {@link Builder#maxPooledSize(int)}
     */
    public int maxPooledSize() {
        return maxPooledSize;
    }

    /**
     * The largest slab a large chunk is cut from.
     *
     * @return the size in bytes, a power of two from 512 KiB to 1 GiB; see {@link Builder#maxLargeChunkSize(int)}
     */
    public int maxLargeChunkSize() {
        return maxLargeChunkSize;
    }

    /**
     * The number of shared magazines per memory type.
     *
     * @return a power of two from 1 to 1024; see {@link Builder#sharedMagazines(int)}
     */
    public int sharedMagazines() {
        return sharedMagazines;
    }

    /**
     * Whether every platform thread gets a magazine of its own.
     *
     * @return true if every platform thread does, false if only event-loop threads and attached threads do; see
     *         {@link Builder#threadLocalMagazinesForAllThreads(boolean)}
     */
    public boolean threadLocalMagazinesForAllThreads() {
        return threadLocalMagazinesForAllThreads;
    }

    /**
     * The period of the decay ticks.
     *
     * @return the period in milliseconds, from 0 (decay off) to 3,600,000; see {@link Builder#decayMillis(long)}
     */
    public long decayMillis() {
        return decayMillis;
    }

    /**
     * The quiet time after which the C heap is trimmed.
     *
     * @return the time in milliseconds, from 0 (no trims) to 3,600,000; see {@link Builder#nativeTrimMillis(long)}
     */
    public long nativeTrimMillis() {
        return nativeTrimMillis;
    }

    /**
     * Whether debug mode is on.
     *
     * @return true if freed memory is poisoned and buffer objects are never reused; see
     *         {@link Builder#debug(boolean)}
     */
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
        /** Whether {@link #maxPooledSize(int)} was called: only a default follows a smaller maxLargeChunkSize. */
        private boolean maxPooledSizeSet;
        private int maxLargeChunkSize = DEFAULT_MAX_LARGE_CHUNK_SIZE;
        private int sharedMagazines = DEFAULT_SHARED_MAGAZINES;
        private boolean threadLocalMagazinesForAllThreads = DEFAULT_THREAD_LOCAL_FOR_ALL_THREADS;
        private long decayMillis = DEFAULT_DECAY_MILLIS;
        private long nativeTrimMillis = DEFAULT_NATIVE_TRIM_MILLIS;
        private boolean debug = DEFAULT_DEBUG;

        Builder() {
        }

        /**
         * Whether {@code buffer()} returns direct buffers rather than heap buffers; {@code heapBuffer()} and
         * {@code directBuffer()} return their kind either way. Netty returns heap buffers where it cannot free direct
         * memory reliably, whatever this says.
         *
         * <p>Default: {@code true}, or system property {@code magalloc.preferDirect}. Any value is accepted.
         *
         * @param preferDirect true for direct buffers by default, false for heap buffers
         * @return this builder
         */
        public Builder preferDirect(boolean preferDirect) {
            this.preferDirect = preferDirect;
            return this;
        }

        /**
         * Bytes of empty slabs kept for reuse, per memory type (heap and direct each have a reuse pool with this
         * budget). Empty chunks beyond it go back to the system. While {@link #decayMillis(long) decay} is on, the
         * pool may hold up to twice the budget (and more of large chunks' slabs while large buffers swing) for one
         * decay period before it gives the excess back; with decay off it holds at most the budget. A larger budget
         * serves bursts without trips to the system; a smaller one lowers the memory held after a peak.
         *
         * <p>Default: 16 MiB (16,777,216), or system property {@code magalloc.reuseBudgetBytes}. Range: 0 (keep no
         * empty slabs) or more. A negative value makes {@link #config()} and {@link #build()} throw
         * {@link IllegalArgumentException}; this setter accepts any value.
         *
         * @param bytes the budget in bytes, 0 or more
         * @return this builder
         */
        public Builder reuseBudgetBytes(long bytes) {
            this.reuseBudgetBytes = bytes;
            return this;
        }

        /**
         * Largest request (initial capacity, or the capacity a buffer grows to) that is pooled: requests above the
         * size classes (32 KiB) up to it take pages of large chunks; larger ones get a slab of their own, taken from
         * the system and freed on release.
         *
         * <p>Default: 1 MiB (1,048,576), or system property {@code magalloc.maxPooledSize}; left unset, it is lowered
         * to the builder's {@link #maxLargeChunkSize(int)} where that is smaller. Range: 32,768 to the
         * {@code maxLargeChunkSize} this builder ends with, inclusive; not necessarily a power of two. A value set
         * outside it makes {@link #config()} and {@link #build()} throw {@link IllegalArgumentException}; this setter
         * accepts any value.
         *
         * @param bytes the largest pooled request, in bytes
         * @return this builder
         */
        public Builder maxPooledSize(int bytes) {
            this.maxPooledSize = bytes;
            this.maxPooledSizeSet = true;
            return this;
        }

        /**
         * Largest slab cut into pages for requests above the size classes (32 KiB up to
         * {@link #maxPooledSize(int)}). A large chunk is sized for about two average requests, a power of two from
         * 128 KiB, so this cap matters only for requests that average above half of it.
         *
         * <p>Default: 8 MiB (8,388,608), or system property {@code magalloc.maxLargeChunkSize}. Range: a power of two
         * from 512 KiB (524,288) to 1 GiB (2^30), and at least {@code maxPooledSize}. A value outside it makes
         * {@link #config()} and {@link #build()} throw {@link IllegalArgumentException}; this setter accepts any
         * value.
         *
         * @param bytes the largest large chunk's slab size, in bytes
         * @return this builder
         */
        public Builder maxLargeChunkSize(int bytes) {
            this.maxLargeChunkSize = bytes;
            return this;
        }

        /**
         * Number of shared magazines, per memory type, for threads without a magazine of their own: each such
         * allocation locks one of them, so more of them make such threads wait less, at the cost of the chunks each
         * holds.
         *
         * <p>Default: the number of available processors when this class loads, rounded up to a power of two, at
         * most 16; or system property {@code magalloc.sharedMagazines}. Range: a power of two from 1 to 1024. A
         * value outside it makes {@link #config()} and {@link #build()} throw {@link IllegalArgumentException};
         * this setter accepts any value.
         *
         * @param count the number of shared magazines
         * @return this builder
         */
        public Builder sharedMagazines(int count) {
            this.sharedMagazines = count;
            return this;
        }

        /**
         * Whether every platform thread gets a magazine of its own at its first allocation, not only event-loop
         * threads (Netty threads that clean up their thread locals) and threads that call
         * {@link MagazineByteBufAllocator#attachCurrentThread()}. Virtual threads never get one. Off by default, as
         * plain threads can be many and short-lived, and each magazine holds chunks of its own.
         *
         * <p>Default: {@code false}, or system property {@code magalloc.threadLocalMagazinesForAllThreads}. Any value
         * is accepted.
         *
         * @param enabled true to give every platform thread a magazine
         * @return this builder
         */
        public Builder threadLocalMagazinesForAllThreads(boolean enabled) {
            this.threadLocalMagazinesForAllThreads = enabled;
            return this;
        }

        /**
         * Period of the decay ticks, in milliseconds; 0 turns them off. Memory a thread's magazine holds beyond its
         * live buffers goes back to the reuse pool within two periods of its release, whether or not the thread keeps
         * allocating (the ticks run on the thread's event loop, or on its own slow paths if it runs none). The reuse
         * pool gives back what it holds above {@link #reuseBudgetBytes(long) its budget} one period after it went
         * above; with 0 it never holds more than its budget.
         *
         * <p>Default: 1000, or system property {@code magalloc.decayMillis}. Range: 0 to 3,600,000 (one hour). A value
         * outside it makes {@link #config()} and {@link #build()} throw {@link IllegalArgumentException}; this setter
         * accepts any value.
         *
         * @param millis the period in milliseconds, 0 for no decay
         * @return this builder
         */
        public Builder decayMillis(long millis) {
            this.decayMillis = millis;
            return this;
        }

        /**
         * Quiet time before the C allocator's heap is trimmed, in milliseconds; 0 turns the trims off. After at least
         * 1 MiB of direct memory went back to the C allocator, its heap is trimmed on a background thread once none
         * went back for this long (at the latest ten times this after the last trim), so that the process's resident
         * memory follows what the allocator holds: glibc keeps freed blocks otherwise. Two trims start at least this
         * far apart. Direct memory only; where the C heap cannot be trimmed (not glibc, the JVM trims it itself) it
         * does nothing.
         *
         * <p>Default: 1000, or system property {@code magalloc.nativeTrimMillis}. Range: 0 to 3,600,000 (one hour).
         * A value outside it makes {@link #config()} and {@link #build()} throw {@link IllegalArgumentException};
         * this setter accepts any value.
         *
         * @param millis the quiet time in milliseconds, 0 for no trims
         * @return this builder
         */
        public Builder nativeTrimMillis(long millis) {
            this.nativeTrimMillis = millis;
            return this;
        }

        /**
         * Debug mode: freed memory is poisoned and buffer objects are never recycled, so that a stale reference or
         * a double release fails loudly instead of touching another buffer's data. Slower; for tests and hunting
         * bugs, not production.
         *
         * <p>Default: {@code false}, or system property {@code magalloc.debug}. Any value is accepted.
         *
         * @param enabled true for debug mode
         * @return this builder
         */
        public Builder debug(boolean enabled) {
            this.debug = enabled;
            return this;
        }

        /**
         * Checks the settings and makes a configuration of them, without an allocator. The builder stays usable.
         *
         * @return a new immutable configuration with this builder's settings
         * @throws IllegalArgumentException if a setting is out of its range (see each setter); the message names the
         *                                  first such setting, its value and the range
         */
        public MagazineAllocatorConfig config() {
            return new MagazineAllocatorConfig(this);
        }

        /**
         * Checks the settings and makes an allocator with them, with pools of its own. The builder stays usable.
         *
         * @return a new allocator
         * @throws IllegalArgumentException if a setting is out of its range (see each setter); the message names the
         *                                  first such setting, its value and the range
         */
        public MagazineByteBufAllocator build() {
            return new MagazineByteBufAllocator(config());
        }
    }
}
