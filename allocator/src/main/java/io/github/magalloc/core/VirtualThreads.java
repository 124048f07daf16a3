package io.github.magalloc.core;

import io.github.magalloc.buffer.DirectCallers;
import io.netty.util.internal.PlatformDependent;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Tells virtual threads from platform threads: {@code Thread.isVirtual()} of JDK 21+, found by name (this code
 * compiles for JDK 17) and called directly ({@link DirectCallers}). Netty's {@code PlatformDependent.isVirtualThread}
 * answers the same through a method handle, which the JDK customizes at about its 128th call from code not yet
 * compiled, on whatever thread makes that call: an allocation on a virtual thread, pinned to its carrier while it does.
 */
public final class VirtualThreads {
    /** Whether a thread is virtual. */
    @FunctionalInterface
    interface ThreadKind {
        boolean isVirtual(Thread thread);
    }

    private static final ThreadKind KIND = findKind();

    private VirtualThreads() {
    }

    /**
     * Whether {@code thread} is a virtual thread.
     *
     * @param thread the thread to look at, not null
     * @return true for a virtual thread; always false before JDK 21
     */
    public static boolean isVirtual(Thread thread) {
        return KIND.isVirtual(thread);
    }

    private static ThreadKind findKind() {
        MethodHandle isVirtual;
        try {
            isVirtual = MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return thread -> false; // before JDK 21: no virtual threads
        }
        try {
            return DirectCallers.implement(MethodHandles.lookup(), ThreadKind.class, "isVirtual", isVirtual);
        } catch (IllegalStateException e) {
            return PlatformDependent::isVirtualThread; // not expected; the same answer, through a method handle
        }
    }
}
