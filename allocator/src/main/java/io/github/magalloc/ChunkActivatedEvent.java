package io.github.magalloc;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("magalloc.ChunkActivated")
@Label("Chunk Activated")
@Description("A magazine put a chunk of a size class to use: an empty chunk of the class from the reuse pool, or a "
    + "new chunk cut from a slab (pooled or new)")
final class ChunkActivatedEvent extends MagallocEvent {
    @Label("Size Class")
    @Description("Index of the size class (0 is the smallest)")
    int sizeClass;

    @Label("Segment Size")
    @Description("Bytes of each buffer's segment in this class")
    @DataAmount
    int segmentSize;

    @Label("Segments")
    int segmentCount;

    @Label("Chunk Size")
    @Description("Bytes of the slab the chunk is cut from")
    @DataAmount
    int chunkSize;

    @Label("Thread Magazine")
    @Description("The magazine is a thread's own (event loop or attached thread); false for a shared one")
    boolean threadLocal;

    @Label("Reused Whole")
    @Description("An empty chunk of this class came from the reuse pool as it was; false for a chunk cut from a slab")
    boolean reused;

    @Label("Active Chunks")
    @Description("Chunks of this size class and memory type in use afterwards (metric().activeChunks())")
    long activeChunks;

    static void emit(MemoryPool pool, SizeClassChunk chunk, Magazine magazine, boolean reused) {
        ChunkActivatedEvent event = new ChunkActivatedEvent();
        if (event.shouldCommit()) {
            event.setPool(pool);
            event.sizeClass = chunk.sizeClass;
            event.segmentSize = chunk.segmentSize;
            event.segmentCount = chunk.segmentCount;
            event.chunkSize = chunk.slab.size;
            event.threadLocal = magazine.objects != null;
            event.reused = reused;
            event.activeChunks = pool.metrics.activeChunks(chunk.sizeClass);
            event.commit();
        }
    }
}
