package io.github.magalloc.core;

import io.github.magalloc.buffer.Slab;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;

/**
 * How freeing a direct slab gives its memory back to the system, as Netty frees it in this JVM; decided once, since
 * Netty chooses when {@link PlatformDependent} loads. A wrong answer costs memory or time, never correctness: each way
 * of freeing is safe.
 */
enum DirectMemoryRelease {
    /**
     * At once and cheaply: through {@code Unsafe} (Netty's no-cleaner buffers, or the JDK's cleaner run by hand), or
     * on JDK 24+ through {@code free()} linked with the foreign function API, which Netty uses only where native access
     * is enabled for its module.
     */
    AT_ONCE,
    /**
     * At once, by closing the slab's own shared arena (JDK 25 without {@code Unsafe} and without native access, Netty's
     * {@code CleanerJava25}): the close is a handshake with every thread of the JVM, tens of microseconds with few
     * threads and milliseconds with many, so slabs are closed on the background thread ({@code ArenaCloser}), never
     * on the thread that frees them.
     */
    BY_CLOSING_ITS_ARENA,
    /**
     * When the garbage collector collects the slab's buffer (an older Netty on JDK 24+ without {@code Unsafe} and
     * native access): giving a slab back lowers nothing until a collection, while a new one takes fresh memory.
     */
    BY_THE_COLLECTOR;

    /** This JVM's. */
    static final DirectMemoryRelease HERE = detect();

    private static DirectMemoryRelease detect() {
        if (PlatformDependent.hasUnsafe()
            || PlatformDependent.javaVersion() >= 24 && isNativeAccessEnabled(PlatformDependent.class.getModule())) {
            return AT_ONCE;
        }
        return closesArenas() ? BY_CLOSING_ITS_ARENA : BY_THE_COLLECTOR;
    }

    /** Whether the direct memory slabs get is freed by closing a shared arena: a one-off probe of 64 bytes. */
    private static boolean closesArenas() {
        try {
            CleanableDirectBuffer probe = Slab.allocateDirectMemory(64);
            boolean arena = probe.getClass().getName().contains("CleanerJava25");
            probe.clean();
            return arena;
        } catch (RuntimeException | Error e) {
            return false;
        }
    }

    /** {@code Module.isNativeAccessEnabled()}, a JDK 22 method, called reflectively as the baseline is JDK 17. */
    static boolean isNativeAccessEnabled(Module module) {
        try {
            return (Boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(module);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
