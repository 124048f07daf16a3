package io.github.magalloc.receive;

import io.github.magalloc.core.JdkOnlyTasks;
import io.github.magalloc.core.WatchList;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Periodic: a receive allocator's counts since it was made ({@link ReceiveMetric}), one event per allocator at each
 * period. Loaded only where the {@code jdk.jfr} module is ({@link ReceiveEvents}); off unless a recording enables
 * it (docs/magalloc.jfc does).
 */
@Name("magalloc.ReceiveStatistics")
@Label("Receive Statistics")
@Description("A receive allocator's reads since it was made: bytes read against the capacity allocated for them and "
    + "the capacity cut back before the pipeline saw the buffers")
@Category({"Netty", "magalloc"})
@Period("10 s")
@Enabled(false)
final class ReceiveStatisticsEvent extends jdk.jfr.Event {
    /** The receive allocators each period reports; weakly, so one nobody uses can be collected. */
    private static final WatchList<ReceiveMetricProvider> WATCHED = new WatchList<>();
    /**
     * The periodic hook, held here: the flight recorder keeps a task of the JDK's classes that runs it while it is
     * reachable ({@link JdkOnlyTasks}), so that the recorder keeps nothing of magalloc's class loader.
     */
    private static final Runnable EMIT_ALL = ReceiveStatisticsEvent::emitAll;
    /** Guarded by the class's lock: the hook is registered at the first receive allocator. */
    private static boolean hooked;

    @Label("Receive Allocator")
    @Description("The receive allocator's hashCode(), as in the id tag of magalloc's Micrometer binder")
    int receiveAllocatorId;

    @Label("Reads")
    @Description("Reads that brought bytes")
    long reads;

    @Label("Bytes Read")
    @DataAmount
    long bytesRead;

    @Label("Capacity Allocated")
    @Description("Capacity of the read buffers allocated")
    @DataAmount
    long capacityAllocated;

    @Label("Capacity Cut Back")
    @Description("Capacity cut back to the bytes read before the pipeline saw the buffers")
    @DataAmount
    long capacityCutBack;

    static void watch(ReceiveMetricProvider receive) {
        WATCHED.add(receive);
        hookOnce();
    }

    /**
     * Registers the periodic hook once, from a thread of the JDK's (the registration's access-control context must not
     * name magalloc's classes); not in the static initializer, where the registering thread might wait for this
     * class's initialization.
     */
    private static synchronized void hookOnce() {
        if (hooked) {
            return;
        }
        hooked = true;
        try {
            JdkOnlyTasks.register(MethodHandles.insertArguments(MethodHandles.publicLookup().findStatic(
                FlightRecorder.class, "addPeriodicEvent", MethodType.methodType(void.class, Class.class,
                    Runnable.class)), 0, ReceiveStatisticsEvent.class, JdkOnlyTasks.weakly(EMIT_ALL)));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("FlightRecorder.addPeriodicEvent is the JDK's", e);
        }
    }

    /** Entries of the list, cleared ones not yet removed included; for tests. */
    static int watchedCount() {
        return WATCHED.size();
    }

    private static void emitAll() {
        WATCHED.forEach(ReceiveStatisticsEvent::emit);
    }

    private static void emit(ReceiveMetricProvider receive) {
        ReceiveMetric metric = receive.metric();
        ReceiveStatisticsEvent event = new ReceiveStatisticsEvent();
        event.receiveAllocatorId = receive.hashCode();
        event.reads = metric.reads();
        event.bytesRead = metric.bytesRead();
        event.capacityAllocated = metric.capacityAllocated();
        event.capacityCutBack = metric.capacityCutBack();
        event.commit();
    }
}
