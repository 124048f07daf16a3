package io.github.magalloc.receive;

/**
 * Puts a receive allocator in the periodic {@code magalloc.ReceiveStatistics} flight-recorder event where the runtime
 * has the {@code jdk.jfr} module; a runtime image without it (jlink) never loads the event class.
 */
final class ReceiveEvents {
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private ReceiveEvents() {
    }

    static void watch(ReceiveMetricProvider receive) {
        if (AVAILABLE) {
            ReceiveStatisticsEvent.watch(receive);
        }
    }
}
