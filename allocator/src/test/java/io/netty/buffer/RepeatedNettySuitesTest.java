package io.netty.buffer;

import io.github.magalloc.MagazineByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.MethodFilter;
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
        Launcher launcher = LauncherFactory.create();
        List<String> failures = new ArrayList<>();
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
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "8");
            for (Class<?> suite : SUITES) {
                request.selectors(selectClass(suite));
            }
            if (!INTERNAL_NIO_BUFFER_TESTABLE) {
                request.filters(MethodFilter.excludeMethodNamePatterns(".*#test_internalNioBuffer(\\(\\))?"));
            }
            LauncherDiscoveryRequest discovery = request.build();
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            launcher.execute(discovery, listener);
            TestExecutionSummary summary = listener.getSummary();
            testsRun += summary.getTestsSucceededCount() + summary.getTestsFailedCount();
            for (TestExecutionSummary.Failure failure : summary.getFailures()) {
                failures.add("repetition " + repetition + " (random order seed " + seed + "): "
                    + failure.getTestIdentifier().getUniqueId() + ": " + failure.getException());
            }
        }
        assertThat(failures).isEmpty();
        long perRepetition = 1_689L - (INTERNAL_NIO_BUFFER_TESTABLE ? 0 : INTERNAL_NIO_BUFFER_TESTS);
        assertThat(testsRun).as("tests run in %d repetitions", REPETITIONS)
            .isGreaterThanOrEqualTo(perRepetition * REPETITIONS);
    }
}
