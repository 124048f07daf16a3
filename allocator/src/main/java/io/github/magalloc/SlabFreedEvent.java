package io.github.magalloc;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.MemoryAddress;
import jdk.jfr.Name;

@Name("magalloc.SlabFreed")
@Label("Slab Freed")
@Description("magalloc gave a slab back to the system: a huge buffer was released, an empty chunk or slab found the "
    + "reuse pool at its budget, or trim() or an out-of-memory retry emptied the pool")
final class SlabFreedEvent extends MagallocEvent {
    @Label("Size")
    @DataAmount
    int size;

    @Label("Pooled")
    @Description("False for the memory of one huge buffer (above maxPooledSize)")
    boolean pooled;

    @Label("Address")
    @Description("Start of a direct slab, when known; 0 otherwise")
    @MemoryAddress
    long address;

    @Label("Used")
    @Description("Bytes of this memory type magalloc holds from the system afterwards")
    @DataAmount
    long used;

    static void emit(MemoryPool pool, Slab slab, boolean pooled) {
        SlabFreedEvent event = new SlabFreedEvent();
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
