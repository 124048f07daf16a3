package io.github.magalloc.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("magalloc.SlabFreed")
@Label("Slab Freed")
@Description("magalloc gave a slab back to the system: a huge buffer was released, an empty chunk or slab found the "
    + "reuse pool at its budget, or trim() or an out-of-memory retry emptied the pool")
final class SlabFreedEvent extends SlabEvent {
}
