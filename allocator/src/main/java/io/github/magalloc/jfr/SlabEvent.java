package io.github.magalloc.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.MemoryAddress;

/** What the slab events say about the slab: one set of fields for taking memory from the system and giving it back. */
abstract class SlabEvent extends MagallocEvent {
    @Label("Size")
    @DataAmount
    int size;

    @Label("Pooled")
    @Description("False for the memory of one huge buffer (above maxPooledSize), which lives and dies with that buffer")
    boolean pooled;

    @Label("Address")
    @Description("Start of a direct slab, when known; 0 otherwise")
    @MemoryAddress
    long address;

    @Label("Used")
    @Description("Bytes of this memory type magalloc holds from the system afterwards (metric().usedDirectMemory() "
        + "or usedHeapMemory())")
    @DataAmount
    long used;

    /** Fills every field and commits; call only once {@code shouldCommit()} said yes. */
    final void commit(int allocatorId, boolean direct, int size, boolean pooled, long address, long used) {
        setPool(allocatorId, direct);
        this.size = size;
        this.pooled = pooled;
        this.address = address;
        this.used = used;
        commit();
    }
}
