package io.github.magalloc.soak;

import io.netty.buffer.ByteBuf;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Every live soak buffer object, by identity, with the thread that allocated it: a buffer object handed out while
 * another holder still has it (a recycled object in two hands) is found when it is registered the second time,
 * whatever memory it points at. Leak-detection wrappers are looked through: the object recycled is the one inside.
 */
final class LiveObjects {
    private final Map<ByteBuf, String> owners = new IdentityHashMap<>();

    /** Registers {@code buf}; returns null, or a description of the holder it is still registered to (a failure). */
    synchronized String add(ByteBuf buf, String owner) {
        String holder = owners.putIfAbsent(innermost(buf), owner);
        return holder == null ? null : "buffer object " + buf + " handed to " + owner + " while " + holder
            + " still holds it";
    }

    /** Unregisters {@code buf} just before its final release; returns null, or what is wrong (a failure). */
    synchronized String remove(ByteBuf buf) {
        return owners.remove(innermost(buf)) != null ? null : "buffer object " + buf + " released but not registered";
    }

    synchronized int size() {
        return owners.size();
    }

    private static ByteBuf innermost(ByteBuf buf) {
        ByteBuf b = buf;
        while (b.unwrap() != null) {
            b = b.unwrap();
        }
        return b;
    }
}
