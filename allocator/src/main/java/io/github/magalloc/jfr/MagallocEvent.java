package io.github.magalloc.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;

/**
 * What every magalloc flight-recorder event says: which allocator and which memory type. The events are emitted by
 * {@link JfrPoolEvents} from the pools' cold paths only (slabs, chunks, magazines, trim), never per buffer.
 *
 * <p>Off unless a recording enables them: those that scale with traffic (slabs, chunks, the reuse pool) could be
 * thousands a second under churn, which a continuous recording should not pay for unasked. The few that happen once
 * per thread, per trim or per incident override this and are on in any recording.
 */
@Category({"Netty", "magalloc"})
@Enabled(false)
abstract class MagallocEvent extends jdk.jfr.Event {
    @Label("Allocator")
    @Description("The allocator's hashCode(), as in the id tag of Micrometer's NettyAllocatorMetrics and of magalloc's "
        + "own binder")
    int allocatorId;

    @Label("Direct")
    @Description("Direct (off-heap) memory, or heap")
    boolean direct;

    /** Sets the fields every event has; call only once {@code shouldCommit()} said yes. */
    final void setPool(int allocatorId, boolean direct) {
        this.allocatorId = allocatorId;
        this.direct = direct;
    }
}
