package io.github.magalloc;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs each test, its {@code @BeforeEach} and {@code @AfterEach} methods included, on a virtual thread of its own,
 * which ends with the test: the way a server runs a request. Netty's buffer suites allocate in {@code @BeforeEach}
 * and release (twice, on purpose) in {@code @AfterEach}, so all three must run on one thread for the suites' stale
 * references to be that thread's. Used only where a launcher turns on extension autodetection
 * ({@code RepeatedNettySuitesTest}); JDK 21+.
 */
public final class VirtualThreadPerTest implements InvocationInterceptor {
    private static final ExtensionContext.Namespace NAMESPACE =
        ExtensionContext.Namespace.create(VirtualThreadPerTest.class);

    /** The one virtual thread of a test, shut down (so that it ends) when the test's context closes. */
    private static final class TestThread implements AutoCloseable {
        final ExecutorService executor = Executors.newSingleThreadExecutor(VirtualThreadsForTests.factory());

        @Override
        public void close() {
            executor.shutdown();
        }
    }

    @Override
    public void interceptBeforeEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                          ExtensionContext context) throws Throwable {
        runOnTestThread(invocation, context);
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                    ExtensionContext context) throws Throwable {
        runOnTestThread(invocation, context);
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                            ExtensionContext context) throws Throwable {
        runOnTestThread(invocation, context);
    }

    @Override
    public void interceptAfterEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                         ExtensionContext context) throws Throwable {
        runOnTestThread(invocation, context);
    }

    private static void runOnTestThread(Invocation<Void> invocation, ExtensionContext context) throws Throwable {
        TestThread thread = context.getStore(NAMESPACE).getOrComputeIfAbsent(TestThread.class, type -> new TestThread(),
            TestThread.class);
        Future<Void> done = thread.executor.submit(() -> {
            try {
                return invocation.proceed();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new ExecutionException(t);
            }
        });
        try {
            done.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof ExecutionException ? e.getCause().getCause() : e.getCause();
        }
    }
}
