package io.github.magalloc.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Timespan;

/** On in every recording: it happens once per incident, and it is what one looks for after one. */
@Name("magalloc.MemoryExhausted")
@Label("Memory Exhausted")
@Description("A slab did not fit under the limit (or the system refused it); magalloc gave back what it held free in "
    + "every pool of the kind, trying again after each step. If none fitted, the caller got an OutOfMemoryError")
@Enabled(true)
final class MemoryExhaustedEvent extends MagallocEvent {
    @Label("Requested")
    @Description("Bytes of the slab that could not be taken")
    @DataAmount
    int requested;

    @Label("Given Back")
    @Description("Bytes of slabs given back to the system while making room, in every pool of the kind")
    @DataAmount
    long freedBytes;

    @Label("Recovered")
    @Description("The slab was taken in the end; false when the caller got an OutOfMemoryError")
    boolean recovered;

    @Label("Making Room")
    @Description("How long making room took, waiting for other threads' answers included")
    @Timespan(Timespan.NANOSECONDS)
    long makingRoom;

    @Label("Unanswered Threads")
    @Description("Threads whose magazines were asked to give back and had not answered when the allocation stopped "
        + "waiting (busy or blocked elsewhere)")
    int unanswered;

    @Label("Used")
    @Description("Bytes of this memory type magalloc holds from the system afterwards")
    @DataAmount
    long used;

    @Label("Limit")
    @Description("The JVM's limit for this memory type: max direct memory as Netty sees it, or max heap")
    @DataAmount
    long limit;

    @Label("First Error")
    @Description("The system's refusal of a slab magalloc asked for, if any (absent when the limit said beforehand that "
        + "it would not fit, and on virtual threads, where writing it could pin the thread to its carrier)")
    String firstError;

}
