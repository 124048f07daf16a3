package io.github.magalloc.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** On in every recording: it happens once per incident, and it is what one looks for after one. */
@Name("magalloc.MemoryExhausted")
@Label("Memory Exhausted")
@Description("Taking a slab from the system failed with OutOfMemoryError; magalloc freed the empty slabs it pooled "
    + "and tried once more. If that failed too, the caller got an OutOfMemoryError")
@Enabled(true)
final class MemoryExhaustedEvent extends MagallocEvent {
    @Label("Requested")
    @Description("Bytes of the slab that could not be taken")
    @DataAmount
    int requested;

    @Label("Freed For Retry")
    @Description("Bytes of pooled empty slabs given back to the system before the retry")
    @DataAmount
    long freedBytes;

    @Label("Recovered")
    @Description("The retry succeeded; false when the caller got an OutOfMemoryError")
    boolean recovered;

    @Label("Used")
    @Description("Bytes of this memory type magalloc holds from the system afterwards")
    @DataAmount
    long used;

    @Label("Limit")
    @Description("The JVM's limit for this memory type: max direct memory as Netty sees it, or max heap")
    @DataAmount
    long limit;

    @Label("First Error")
    @Description("Message of the first OutOfMemoryError; absent on virtual threads, where writing it could pin the "
        + "thread to its carrier")
    String firstError;

}
