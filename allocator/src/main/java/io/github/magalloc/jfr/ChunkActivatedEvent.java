package io.github.magalloc.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("magalloc.ChunkActivated")
@Label("Chunk Activated")
@Description("A magazine put a chunk of a size class to use: an empty chunk of the class from the reuse pool, or a "
    + "new chunk cut from a slab (pooled or new)")
final class ChunkActivatedEvent extends ChunkEvent {
    @Label("Thread Magazine")
    @Description("The magazine is a thread's own (event loop or attached thread); false for a shared one")
    boolean threadLocal;

    @Label("Reused Whole")
    @Description("An empty chunk of this class came from the reuse pool as it was; false for a chunk cut from a slab")
    boolean reused;

}
