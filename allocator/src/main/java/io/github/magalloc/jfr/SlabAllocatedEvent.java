package io.github.magalloc.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("magalloc.SlabAllocated")
@Label("Slab Allocated")
@Description("magalloc took a slab of memory from the system: for a chunk (pooled), or for one huge buffer")
final class SlabAllocatedEvent extends SlabEvent {
}
