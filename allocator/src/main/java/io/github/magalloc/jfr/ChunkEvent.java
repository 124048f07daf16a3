package io.github.magalloc.jfr;

import io.github.magalloc.core.SizeClasses;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;

/** What the chunk events say about the chunk: its size class, its shape and the class's count afterwards. */
abstract class ChunkEvent extends MagallocEvent {
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

    @Label("Active Chunks")
    @Description("Chunks of this size class and memory type in use afterwards (metric().activeChunks())")
    long activeChunks;

    /** Sets the fields every chunk event has; call only once {@code shouldCommit()} said yes. */
    final void setChunk(int allocatorId, boolean direct, int sizeClass, int chunkSize, long activeChunks) {
        setPool(allocatorId, direct);
        this.sizeClass = sizeClass;
        this.segmentSize = segmentSizeOf(sizeClass);
        this.segmentCount = chunkSize / segmentSize;
        this.chunkSize = chunkSize;
        this.activeChunks = activeChunks;
    }

    static int segmentSizeOf(int sizeClass) {
        return SizeClasses.sizeOf(sizeClass);
    }
}
