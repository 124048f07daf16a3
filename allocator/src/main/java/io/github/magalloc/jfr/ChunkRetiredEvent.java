package io.github.magalloc.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("magalloc.ChunkRetired")
@Label("Chunk Retired")
@Description("An entirely free chunk of a size class left its magazine: kept whole in the reuse pool, or its slab "
    + "given back to the system (a Slab Freed event follows) when the pool is at its budget")
final class ChunkRetiredEvent extends ChunkEvent {
    @Label("Kept In Reuse Pool")
    @Description("False when the reuse pool was at its budget and the slab went back to the system")
    boolean pooled;

}
