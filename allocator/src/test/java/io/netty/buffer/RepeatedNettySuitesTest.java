package io.netty.buffer;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.VirtualThreadPerTest;
import io.github.magalloc.VirtualThreadsForTests;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.MethodFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Netty's buffer suites and allocator contract, run {@value #REPETITIONS} more times in this JVM against the same
 * long-lived {@link MagazineByteBufAllocator#DEFAULT} the other test classes have used: methods in a random order
 * (a new seed each time, printed on failure), eight tests at a time. This is how users run the allocator (one
 * instance for every thread, for weeks), and what object affinity must survive: a test's stale reference to a
 * buffer it released (Netty's tests release twice on purpose) must never reach a buffer object another test has
 * just been given (protocol 5 (buffer objects) in docs/design.md). A fresh allocator per test would hide a breach.
 */
class RepeatedNettySuitesTest {
    private static final int REPETITIONS = Integer.getInteger("nettySuites.repetitions", 3);
    private static final Class<?>[] SUITES = {
        MagallocBigEndianDirectByteBufTest.class,
        MagallocBigEndianHeapByteBufTest.class,
        MagallocLittleEndianDirectByteBufTest.class,
        MagallocLittleEndianHeapByteBufTest.class,
        MagazineByteBufAllocatorContractTest.class,
    };

    /**
     * Netty's {@code test_internalNioBuffer} (once per buffer suite) calls {@code AbstractByteBuf._internalNioBuffer()},
     * which netty-buffer has only from 4.2.10: against an older Netty ({@code -Pnetty-oldest}) the test itself fails
     * with NoSuchMethodError, so it is left out here as allocator/pom.xml leaves it out of the surefire run.
     */
    private static final boolean INTERNAL_NIO_BUFFER_TESTABLE = hasInternalNioBufferMethod();
    private static final int INTERNAL_NIO_BUFFER_TESTS = 4;

    private static boolean hasInternalNioBufferMethod() {
        try {
            AbstractByteBuf.class.getDeclaredMethod("_internalNioBuffer");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void nettySuitesPassAgainAndAgainOnOneLongLivedAllocator() {
        runSuites(false);
    }

    /**
     * The same with every test on a virtual thread of its own ({@link VirtualThreadPerTest}, JDK 21+), as a server
     * runs requests: the buffer objects come from the stripes' shared homes (protocol 5a (virtual threads'
     * objects)), where a test's stale reference must reach no object another test has been given while the first
     * test's thread runs, and an ended test's objects go to the next tests.
     */
    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void nettySuitesPassOnVirtualThreadsOnOneLongLivedAllocator() {
        VirtualThreadsForTests.factory();
        runSuites(true);
    }

    private static void runSuites(boolean virtualThreads) {
        Launcher launcher = LauncherFactory.create();
        List<String> failures = new ArrayList<>();
        List<String> aborted = new ArrayList<>();
        long testsRun = 0;
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            long seed = System.nanoTime();
            LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
                .configurationParameter("junit.jupiter.testmethod.order.default",
                    "org.junit.jupiter.api.MethodOrderer$Random")
                .configurationParameter("junit.jupiter.execution.order.random.seed", Long.toString(seed))
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
                .configurationParameter("junit.jupiter.execution.parallel.mode.default", "concurrent")
                .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "8")
                // VirtualThreadPerTest is the only extension the test classpath declares for autodetection.
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled",
                    Boolean.toString(virtualThreads));
            for (Class<?> suite : SUITES) {
                request.selectors(selectClass(suite));
            }
            if (!INTERNAL_NIO_BUFFER_TESTABLE) {
                request.filters(MethodFilter.excludeMethodNamePatterns(".*#test_internalNioBuffer(\\(\\))?"));
            }
            LauncherDiscoveryRequest discovery = request.build();
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            launcher.execute(discovery, listener, new TestExecutionListener() {
                @Override
                public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                    if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
                        aborted.add(test.getDisplayName());
                    }
                }
            });
            TestExecutionSummary summary = listener.getSummary();
            testsRun += summary.getTestsSucceededCount() + summary.getTestsFailedCount();
            for (TestExecutionSummary.Failure failure : summary.getFailures()) {
                failures.add("repetition " + repetition + " (random order seed " + seed + "): "
                    + failure.getTestIdentifier().getUniqueId() + ": " + failure.getException());
            }
        }
        assertThat(failures).isEmpty();
        // Netty's shouldReuseChunks measures the current thread's allocated bytes, which the JDK does not count for a
        // virtual thread (-1): there it skips itself. directBuffersMustHaveMemoryAddress skips itself without Unsafe
        // before JDK 25 (-Dio.netty.noUnsafe=true). Only these, and each only there.
        List<String> expectedSkips = new ArrayList<>();
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            if (virtualThreads) {
                expectedSkips.add("shouldReuseChunks");
            }
            if (!PlatformDependent.hasUnsafe() && PlatformDependent.javaVersion() < 25) {
                expectedSkips.add("directBuffersMustHaveMemoryAddress");
            }
        }
        long skipped = expectedSkips.size();
        assertThat(aborted).as("tests that skipped themselves").extracting(name -> name.replaceFirst("\\(.*", ""))
            .containsExactlyInAnyOrderElementsOf(expectedSkips);
        long perRepetition = 1_689L - (INTERNAL_NIO_BUFFER_TESTABLE ? 0 : INTERNAL_NIO_BUFFER_TESTS);
        assertThat(testsRun).as("tests run in %d repetitions", REPETITIONS)
            .isGreaterThanOrEqualTo(perRepetition * REPETITIONS - skipped);
    }
}
