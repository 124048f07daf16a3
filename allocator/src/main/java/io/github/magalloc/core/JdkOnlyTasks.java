package io.github.magalloc.core;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Tasks made of the JDK's classes only, for registrations that outlast an application: a container's application
 * carries magalloc in a class loader of its own, and a registration in the JVM (a periodic flight-recorder hook, a
 * cleaner's action) whose task were an object of magalloc's classes would keep that loader, and everything it loaded,
 * after the application is undeployed. A task here is a proxy the JDK makes ({@link MethodHandleProxies}) over method
 * handles of the JDK's (or Netty's, a container's shared library) methods; it references magalloc's objects only
 * weakly, or not at all.
 *
 * <p>{@link #register} makes a registration on a thread of the JDK's common pool: the JVM keeps the access-control
 * context a registration is made in (JDK 17 to 23), and with it the protection domain of every class on the stack,
 * magalloc's own on the allocator's threads.
 */
public final class JdkOnlyTasks {
    private static final MethodHandle GET;
    private static final MethodHandle RUN;
    private static final MethodHandle NON_NULL;
    private static final MethodHandle FOR_EACH;
    private static final MethodHandle COUNT_DOWN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            GET = lookup.findVirtual(Reference.class, "get", MethodType.methodType(Object.class));
            RUN = lookup.findVirtual(Runnable.class, "run", MethodType.methodType(void.class))
                .asType(MethodType.methodType(void.class, Object.class));
            NON_NULL = lookup.findStatic(Objects.class, "nonNull", MethodType.methodType(boolean.class, Object.class));
            FOR_EACH = lookup.findVirtual(Iterable.class, "forEach", MethodType.methodType(void.class,
                Consumer.class));
            COUNT_DOWN = lookup.findVirtual(CountDownLatch.class, "countDown", MethodType.methodType(void.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private JdkOnlyTasks() {
    }

    /**
     * A task that runs {@code target} while it is reachable, and does nothing once it is not: the caller keeps
     * {@code target} strongly for as long as it should run (a static field of its class, say).
     *
     * @param target the task to run, referenced weakly only
     * @return a new task of the JDK's classes that runs {@code target} while it is reachable
     */
    public static Runnable weakly(Runnable target) {
        MethodHandle getTarget = GET.bindTo(new WeakReference<>(target));
        MethodHandle runIfThere = MethodHandles.guardWithTest(NON_NULL, RUN,
            MethodHandles.dropArguments(MethodHandles.zero(void.class), 0, Object.class));
        return proxy(Runnable.class, MethodHandles.filterReturnValue(getTarget, runIfThere));
    }

    /**
     * A task that calls {@code action} (of one argument, returning nothing) on each of {@code items}.
     *
     * @param items the objects to act on, referenced strongly by the task; read when the task runs
     * @param action a method handle of one argument whose result, if any, is dropped
     * @return a new task of the JDK's classes
     */
    public static Runnable forEach(Iterable<?> items, MethodHandle action) {
        Consumer<?> each = proxy(Consumer.class, action.asType(MethodType.methodType(void.class, Object.class)));
        return proxy(Runnable.class, MethodHandles.insertArguments(FOR_EACH, 0, items, each));
    }

    /**
     * Calls {@code registration} (a method handle of the JDK's, its arguments bound, returning nothing) on a thread of
     * the common pool, and waits for it (at most {@link #REGISTRATION_WAIT_SECONDS}). The pool's threads are the JDK's,
     * made in a context of the JDK's own; a task handed to the pool from here must run there, not on this thread (as a
     * pool task joined from here could: this thread's context names magalloc's classes), so it is executed and awaited,
     * not joined.
     *
     * @param registration a method handle with every argument bound, returning nothing
     */
    public static void register(MethodHandle registration) {
        CountDownLatch done = new CountDownLatch(1);
        MethodHandle whatever = MethodHandles.dropArguments(COUNT_DOWN.bindTo(done), 0, Throwable.class);
        Runnable task = proxy(Runnable.class, MethodHandles.tryFinally(
            registration.asType(MethodType.methodType(void.class)), whatever));
        ForkJoinPool.commonPool().execute(task);
        try {
            done.await(REGISTRATION_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** How long {@link #register} waits: a registration takes milliseconds; a pool that long busy does it later. */
    static final long REGISTRATION_WAIT_SECONDS = 10;

    /**
     * A proxy of {@code type} over {@code target}, made with no context class loader: where the interface is the
     * JDK's own, the JDK defines the proxy's class in the context class loader, which is an application's on its
     * threads.
     */
    private static <T> T proxy(Class<T> type, MethodHandle target) {
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(null);
        try {
            return MethodHandleProxies.asInterfaceInstance(type, target);
        } finally {
            thread.setContextClassLoader(context);
        }
    }
}
