package io.github.magalloc.bench.receive;

import io.github.magalloc.workload.AllocatorKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The receive scenario in this JVM, briefly: 4 paced clients, half a second of warm-up and one measured second per
 * run, on magalloc. Asserts what the scenario counts, not its timings: requests complete, every body whole, nothing
 * left in flight once the clients stop, the receive allocator read every byte sent, and right-sized read buffers
 * hold less memory than 512 KiB ones.
 */
class ReceiveScenarioTest {
    private static final int CLIENTS = 4;

    @Test
    void rightSizedReadBuffersHoldLessThanFixed512KiBOnes() throws Exception {
        ReceiveResult magalloc = run(ReceiveSetting.MAGALLOC, true);
        ReceiveResult fixed = run(ReceiveSetting.FIXED_512K, true);
        for (ReceiveResult result : new ReceiveResult[] {magalloc, fixed}) {
            assertCompleteRun(result);
            assertThat(result.readBuffers()).isEqualTo("direct");
        }
        assertThat(magalloc.meanUsedBytes()).as("mean used memory, magalloc's receive allocator vs fixed 512 KiB")
            .isLessThan(fixed.meanUsedBytes());
        // Every byte the clients sent went through the receive allocator's reads, and no more.
        assertThat(magalloc.metric()).isNotNull();
        assertThat(magalloc.metric().bytesRead())
            .isEqualTo(magalloc.totalRequests() * ReceiveClients.REQUEST.length);
        assertThat(fixed.metric()).as("a FixedRecvByteBufAllocator has no metric").isNull();
    }

    @Test
    void heapModeReadsIntoHeapBuffers() throws Exception {
        ReceiveResult result = run(ReceiveSetting.CUT_FIXED_512K, false);
        assertCompleteRun(result);
        assertThat(result.readBuffers()).isEqualTo("heap");
        assertThat(result.metric().capacityCutBack()).as("cut back to their bytes").isPositive();
    }

    @Test
    void parsesTheCommandLine() {
        ReceiveConfig config = ReceiveConfig.parse("magalloc", "heap", "fixed-64k-es-trim", "back-to-back", "16", "1",
            "2.5");
        assertThat(config).isEqualTo(new ReceiveConfig(AllocatorKind.MAGALLOC, false,
            ReceiveSetting.FIXED_64K_ES_TRIM, ClientMode.BACK_TO_BACK, 16, 1, 2.5));
        assertThat(config.setting().elasticsearchTrim()).isTrue();
        for (ReceiveSetting setting : ReceiveSetting.values()) {
            assertThat(ReceiveSetting.parse(setting.label())).isEqualTo(setting);
            assertThat(setting.create()).isNotNull();
        }
        assertThatThrownBy(() -> ReceiveConfig.parse("magalloc", "direct", "magalloc", "paced", "4", "1"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("7 arguments");
        assertThatThrownBy(() -> ReceiveConfig.parse("nope", "direct", "magalloc", "paced", "4", "1", "1"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allocator");
        assertThatThrownBy(() -> ReceiveConfig.parse("magalloc", "offheap", "magalloc", "paced", "4", "1", "1"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap or direct");
        assertThatThrownBy(() -> ReceiveConfig.parse("magalloc", "direct", "fixed-1m", "paced", "4", "1", "1"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("receive setting");
        assertThatThrownBy(() -> ReceiveConfig.parse("magalloc", "direct", "magalloc", "slow", "4", "1", "1"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client mode");
        assertThatThrownBy(() -> ReceiveConfig.parse("magalloc", "direct", "magalloc", "paced", "0", "1", "1"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clients");
        assertThatThrownBy(() -> ReceiveConfig.parse("magalloc", "direct", "magalloc", "paced", "4", "1", "0"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seconds");
    }

    private static ReceiveResult run(ReceiveSetting setting, boolean direct) throws Exception {
        return ReceiveScenario.run(new ReceiveConfig(AllocatorKind.MAGALLOC, direct, setting, ClientMode.PACED,
            CLIENTS, 0.5, 1));
    }

    private static void assertCompleteRun(ReceiveResult result) {
        String what = result.config().setting().label() + ": " + result.tsv();
        assertThat(result.requests()).as("requests in the measured window, %s", what).isPositive();
        assertThat(result.totalRequests()).as(what).isGreaterThanOrEqualTo(result.requests());
        assertThat(result.badRequests()).as("requests whose body was not %d bytes, %s", ReceiveClients.BODY_BYTES,
            what).isZero();
        assertThat(result.outOfMemoryErrors()).as(what).isZero();
        assertThat(result.otherErrors()).as(what).isZero();
        assertThat(result.clientErrors()).as(what).isZero();
        assertThat(result.reconnects()).as(what).isZero();
        assertThat(result.samples()).as(what).isGreaterThanOrEqualTo(ReceiveScenario.MIN_SAMPLES);
        assertThat(result.meanInFlightBytes()).as(what).isPositive();
        assertThat(result.stoppedCleanly()).as("every client finished its request, %s", what).isTrue();
        assertThat(result.inFlightAfterStop()).as("bytes in flight once the clients stopped, %s", what).isZero();
    }
}
