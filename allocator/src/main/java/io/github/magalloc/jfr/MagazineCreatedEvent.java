package io.github.magalloc.jfr;

import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** On in every recording: once per thread that gets a magazine. Recorded on that thread (the event's thread). */
@Name("magalloc.MagazineCreated")
@Label("Thread Magazine Created")
@Description("A thread got a magazine of its own at its first allocation: an event loop, or a thread that attached "
    + "itself")
@Enabled(true)
final class MagazineCreatedEvent extends MagallocEvent {
    @Label("Thread Magazines")
    @Description("Live thread magazines of this memory type afterwards (metric().threadLocalMagazines())")
    int threadMagazines;

}
