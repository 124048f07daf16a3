package io.github.magalloc.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** On in every recording: once per thread magazine. */
@Name("magalloc.MagazineEnded")
@Label("Thread Magazine Ended")
@Description("A thread's magazine became shared because its thread exited, detached or died: its empty chunks went "
    + "back at once, the others go back as their last buffer is released, on whichever thread")
@Enabled(true)
final class MagazineEndedEvent extends MagallocEvent {
    // Id and name rather than a Thread field: the recorder writes a thread that has terminated as null, and a
    // reaped magazine's owner always has.
    @Label("Owner Thread Id")
    @Description("Thread.getId() of the thread whose magazine it was")
    long ownerThreadId;

    @Label("Owner Thread Name")
    @Description("Its name; null if the thread object was already collected")
    String ownerThreadName;

    @Label("Reaped")
    @Description("The owner died without cleaning up and another thread found it (a new thread magazine, or trim()); "
        + "false when the owner ended it itself (exit of an event loop, detachCurrentThread())")
    boolean reaped;

    @Label("Held")
    @Description("Bytes of the chunks the magazine held when it ended")
    @DataAmount
    long heldBytes;

    @Label("Still Held")
    @Description("Bytes of its chunks that buffers still use; they go back as those buffers are released")
    @DataAmount
    long stillHeldBytes;

    @Label("Chunks Still Held")
    int stillHeldChunks;

    @Label("Ended Threads' Memory")
    @Description("Bytes held by all ended magazines of this memory type afterwards (metric().endedThreadsMemory())")
    @DataAmount
    long endedThreadsMemory;

}
