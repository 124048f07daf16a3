package io.github.magalloc.bench;

import io.github.magalloc.workload.AllocatorKind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The allocator under test, shared by all worker threads of a trial (as a server shares one allocator). */
@State(Scope.Benchmark)
public class AllocatorState {
    @Param({"MAGALLOC", "ADAPTIVE", "POOLED", "POOLED_ALL_THREADS", "UNPOOLED"})
    public AllocatorKind allocator;

    @Param({"true", "false"})
    public boolean direct;

    /** EVENT_LOOP and HARNESS need the fork to run with {@link Workers#jvmArgs}; see {@link Workers}. */
    @Param({"EVENT_LOOP", "PLAIN", "HARNESS"})
    public Workers threads;

    public ByteBufAllocator alloc;

    @Setup(Level.Trial)
    public void create() {
        alloc = allocator.create(direct);
    }

    /** Every worker thread calls this from its own trial setup: fails the trial if it is the wrong thread kind. */
    public void verifyWorker() {
        threads.verify(allocator, alloc);
    }

    public ByteBuf allocate(int size) {
        return direct ? alloc.directBuffer(size) : alloc.heapBuffer(size);
    }
}
