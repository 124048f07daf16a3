package io.github.magalloc.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** On in every recording: trim() is called by the application, rarely. One event per memory type. */
@Name("magalloc.Trim")
@Label("Trim")
@Description("trim() ran for one memory type: ended the magazines of dead threads, shared magazines gave back their "
    + "empty chunks, thread magazines were asked to at their next refill, and the reuse pool was emptied")
@Enabled(true)
final class TrimEvent extends MagallocEvent {
    @Label("Freed")
    @Description("Bytes of empty slabs given back to the system")
    @DataAmount
    long freedBytes;

    @Label("Dead Threads' Magazines")
    @Description("Magazines of threads that died without cleaning up, ended by this trim")
    int reapedMagazines;

    @Label("Thread Magazines Asked")
    @Description("Live thread magazines asked to give back their empty chunks at their next refill")
    int threadMagazines;

    @Label("Used")
    @Description("Bytes of this memory type magalloc holds from the system afterwards")
    @DataAmount
    long used;

}
