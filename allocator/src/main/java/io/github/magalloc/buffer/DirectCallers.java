package io.github.magalloc.buffer;

import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Implementations of one-method interfaces that call a method found by name (of a newer JDK or Netty than this code
 * compiles against), each made once by {@link LambdaMetafactory}: a class whose method calls the target directly.
 * Not a method handle kept and called: the JDK customizes such a handle at about its 128th call from code not yet
 * compiled, making a class on whatever thread makes that call, and a virtual thread doing that is pinned to its
 * carrier, also while it waits on a lock of the JDK's within the customization.
 */
public final class DirectCallers {
    private DirectCallers() {
    }

    /**
     * An instance of {@code type}, whose one abstract method {@code method} has {@code target}'s type (an instance
     * method's receiver first), calling {@code target}. {@code lookup} is the caller's, which can see {@code type}.
     * Throws {@link IllegalStateException} when the JDK refuses to make it.
     *
     * @param <T> the interface type
     * @param lookup the caller's lookup, with access to {@code type}
     * @param type the interface to implement, with one abstract method
     * @param method the name of that method
     * @param target what the method calls, of the method's type
     * @return a new instance of {@code type}
     * @throws IllegalStateException if the JDK cannot make the implementation
     */
    public static <T> T implement(MethodHandles.Lookup lookup, Class<T> type, String method, MethodHandle target) {
        try {
            return type.cast(LambdaMetafactory.metafactory(lookup, method, MethodType.methodType(type), target.type(),
                target, target.type()).getTarget().invoke());
        } catch (Throwable e) {
            throw new IllegalStateException("cannot implement " + type.getName() + "." + method + " by " + target, e);
        }
    }
}
