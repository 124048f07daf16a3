package io.github.magalloc.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("magalloc.ReusePoolTake")
@Label("Reuse Pool Take")
@Description("A magazine needed a chunk it did not have and looked in the reuse pool: a hit (a whole chunk of the "
    + "class, or a slab to cut) or a miss (then it takes a new slab from the system)")
final class ReusePoolTakeEvent extends MagallocEvent {
    @Label("Size Class")
    @Description("Index of the size class, or -1 for a large chunk (requests above the size classes)")
    int sizeClass;

    @Label("Segment Size")
    @Description("Bytes of each segment of the size class; 0 for a large chunk")
    @DataAmount
    int segmentSize;

    @Label("Result")
    @Description("chunk: an empty chunk of the class, used as it was; slab: an empty slab, cut for the class or "
        + "used for a large chunk; miss: nothing that fits")
    String result;

    @Label("Slab Size")
    @Description("Bytes of the slab taken; 0 on a miss")
    @DataAmount
    int slabSize;

    @Label("Pooled Free")
    @Description("Bytes left in the reuse pool of this memory type (metric().pooledFreeMemory())")
    @DataAmount
    long pooledFree;

}
