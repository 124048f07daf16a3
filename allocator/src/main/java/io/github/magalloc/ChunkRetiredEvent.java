package io.github.magalloc;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("magalloc.ChunkRetired")
@Label("Chunk Retired")
@Description("An entirely free chunk of a size class left its magazine: kept whole in the reuse pool, or its slab "
    + "given back to the system (a Slab Freed event follows) when the pool is at its budget")
final class ChunkRetiredEvent extends MagallocEvent {
    @Label("Size Class")
    @Description("Index of the size class (0 is the smallest)")
    int sizeClass;

    @Label("Segment Size")
    @DataAmount
    int segmentSize;

    @Label("Segments")
    int segmentCount;

    @Label("Chunk Size")
    @DataAmount
    int chunkSize;

    @Label("Kept In Reuse Pool")
    @Description("False when the reuse pool was at its budget and the slab went back to the system")
    boolean pooled;

    @Label("Active Chunks")
    @Description("Chunks of this size class and memory type in use afterwards")
    long activeChunks;

    /**
     * Called after the chunk was offered to the reuse pool, where another thread may already have taken it: reads
     * only what never changes in a chunk.
     */
    static void emit(MemoryPool pool, SizeClassChunk chunk, boolean pooled) {
        ChunkRetiredEvent event = new ChunkRetiredEvent();
        if (event.shouldCommit()) {
            event.setPool(pool);
            event.sizeClass = chunk.sizeClass;
            event.segmentSize = chunk.segmentSize;
            event.segmentCount = chunk.segmentCount;
            event.chunkSize = chunk.slab.size;
            event.pooled = pooled;
            event.activeChunks = pool.metrics.activeChunks(chunk.sizeClass);
            event.commit();
        }
    }
}
