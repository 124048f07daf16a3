package io.github.magalloc.jfr;

import io.github.magalloc.core.JdkOnlyTasks;
import io.github.magalloc.core.MemoryPool;
import io.github.magalloc.core.SizeClasses;
import io.github.magalloc.core.WatchList;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Periodic: for every size class an allocator has allocated from, the allocations, bytes requested and bytes handed
 * out since it was made, which show the rounding of the class table on the traffic. One event per pool and size
 * class at each period, from the pools' counts ({@code metric().allocations()}, {@code requestedBytes()}); nothing is
 * recorded per buffer.
 */
@Name("magalloc.SizeClassRequests")
@Label("Size Class Requests")
@Description("Allocations of one size class since the allocator was made: bytes requested against bytes handed out")
@Period("60 s")
final class SizeClassRequestsEvent extends MagallocEvent {
    /** The pools whose counts each period reports; weakly, so an allocator nobody uses can be collected. */
    private static final WatchList<MemoryPool> WATCHED = new WatchList<>();
    /**
     * The periodic hook, held here: the flight recorder keeps a task of the JDK's classes that runs it while it is
     * reachable ({@link JdkOnlyTasks}), so that the recorder keeps nothing of magalloc's class loader.
     */
    private static final Runnable EMIT_ALL = SizeClassRequestsEvent::emitAll;
    /** Guarded by the class's lock: the hook is registered at the first pool, not while the class initializes. */
    private static boolean hooked;

    @Label("Size Class")
    @Description("Index of the size class (0 is the smallest)")
    int sizeClass;

    @Label("Segment Size")
    @DataAmount
    int segmentSize;

    @Label("Allocations")
    long allocations;

    @Label("Requested")
    @Description("Bytes the allocations asked for (their initial capacities)")
    @DataAmount
    long requestedBytes;

    @Label("Handed Out")
    @Description("Bytes the allocations were given: allocations times the segment size")
    @DataAmount
    long handedOutBytes;

    /** Reports {@code pool}'s counts at every period from now on, while it is reachable. */
    static void watch(MemoryPool pool) {
        WATCHED.add(pool);
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
        JdkOnlyTasks.register(MethodHandles.insertArguments(ADD_PERIODIC_EVENT, 0, SizeClassRequestsEvent.class,
            JdkOnlyTasks.weakly(EMIT_ALL)));
    }

    /** {@code FlightRecorder.addPeriodicEvent(Class, Runnable)}. */
    static final MethodHandle ADD_PERIODIC_EVENT = findAddPeriodicEvent();

    private static MethodHandle findAddPeriodicEvent() {
        try {
            return MethodHandles.publicLookup().findStatic(FlightRecorder.class, "addPeriodicEvent",
                MethodType.methodType(void.class, Class.class, Runnable.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static void emitAll() {
        WATCHED.forEach(SizeClassRequestsEvent::emit);
    }

    private static void emit(MemoryPool pool) {
        long[] counts = pool.requestCounts();
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            if (counts[c << 1] == 0) {
                continue;
            }
            SizeClassRequestsEvent event = new SizeClassRequestsEvent();
            event.setPool(pool.allocatorId(), pool.isDirect());
            event.sizeClass = c;
            event.segmentSize = SizeClasses.sizeOf(c);
            event.allocations = counts[c << 1];
            event.requestedBytes = counts[(c << 1) + 1];
            event.handedOutBytes = event.allocations * event.segmentSize;
            event.commit();
        }
    }
}
