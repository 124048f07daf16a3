package io.github.magalloc;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.MemoryAddress;
import jdk.jfr.Name;

@Name("magalloc.SlabAllocated")
@Label("Slab Allocated")
@Description("magalloc took a slab of memory from the system: for a chunk (pooled), or for one huge buffer")
final class SlabAllocatedEvent extends MagallocEvent {
    @Label("Size")
    @DataAmount
    int size;

    @Label("Pooled")
    @Description("False for the memory of one huge buffer (above maxPooledSize), freed when that buffer is released")
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

    static void emit(MemoryPool pool, Slab slab, boolean pooled) {
        SlabAllocatedEvent event = new SlabAllocatedEvent();
        if (event.shouldCommit()) {
            event.setPool(pool);
            event.size = slab.size;
            event.pooled = pooled;
            event.address = slab.address;
            event.used = pool.metrics.reservedBytes.get();
            event.commit();
        }
    }
}
