package io.github.magalloc.core;

import io.netty.util.internal.PlatformDependent;

/**
 * Whether freeing a direct slab gives its memory back to the system at once and cheaply, as Netty frees it here.
 *
 * <p>Netty frees direct memory at once through {@code Unsafe} (its no-cleaner buffers, or the JDK's cleaner run
 * by hand), or on JDK 24+ through {@code free()} linked with the foreign function API, which Netty uses only when
 * native access is enabled for its module. Otherwise (JDK 25 without {@code Unsafe} and without
 * {@code --enable-native-access}) the memory of a freed slab waits for the garbage collector (Netty 4.2.18+) or a
 * shared arena's close, a handshake with every thread (older 4.2 releases); there a slab given back and taken again
 * costs far more than one kept. A wrong answer costs memory or time, never correctness: both ways are safe.
 */
final class DirectMemoryRelease {
    /** Decided once: Netty chooses how it frees direct memory once, when {@link PlatformDependent} loads. */
    static final boolean IS_CHEAP = isCheap();

    private DirectMemoryRelease() {
    }

    private static boolean isCheap() {
        if (PlatformDependent.hasUnsafe()) {
            return true;
        }
        return PlatformDependent.javaVersion() >= 24 && isNativeAccessEnabled(PlatformDependent.class.getModule());
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
