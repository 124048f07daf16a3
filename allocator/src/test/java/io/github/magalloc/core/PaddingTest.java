package io.github.magalloc.core;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CacheLinePadding}'s rule, checked on the field offsets the JVM chose: fields that other threads touch on
 * every operation are at least {@link CacheLinePadding#BYTES} from the fields the owner writes on every operation,
 * and from the objects before and after. A padding class dropped from a hierarchy, or a field declared on the wrong
 * side of one, fails here. Offsets come from {@code sun.misc.Unsafe}, the only way the JDK tells them.
 */
class PaddingTest {
    private static final int BYTES = CacheLinePadding.BYTES;

    @Test
    void aMagazinesOwnerIdIsALineAwayFromItsNeighboursAndItsOwnersFields() {
        long ownerId = offset(Magazine.class, "ownerThreadId");
        assertThat(ownerId).as("leading padding").isGreaterThanOrEqualTo(BYTES);
        assertThat(offset(Magazine.class, "current") - ownerId).as("owner's fields").isGreaterThanOrEqualTo(BYTES);
        assertThat(offset(Magazine.class, "supply") - ownerId).isGreaterThanOrEqualTo(BYTES);
    }

    @Test
    void aChunksReleaserSideIsALineAwayFromTheOwnersCount() {
        long freeCount = offset(SizeClassChunk.class, "freeCount");
        for (String shared : new String[] {"magazine", "remoteFrees", "parkedFreeCount", "remotelyReleased",
            "segmentCount"}) {
            assertThat(freeCount - offset(SizeClassChunk.class, shared)).as(shared)
                .isGreaterThanOrEqualTo(BYTES);
        }
    }

    @Test
    void theLockWordHasItsLinesToItself() {
        assertHasLinesToItself(PaddedSpinLock.class, "state");
    }

    @Test
    void theRoomWordHasItsLinesToItself() {
        assertHasLinesToItself(RoomWord.class, "word");
    }

    /**
     * {@code type}'s field {@code name} has at least {@link CacheLinePadding#BYTES} bytes before it, and as many of its
     * class's padding bytes after it.
     */
    private static void assertHasLinesToItself(Class<?> type, String name) {
        long field = offset(type, name);
        assertThat(field).as("leading padding of %s.%s", type.getSimpleName(), name).isGreaterThanOrEqualTo(BYTES);
        long last = 0;
        for (Field pad : type.getDeclaredFields()) {
            if (pad.getType() == byte.class) {
                last = Math.max(last, offset(type, pad.getName()));
            }
        }
        assertThat(last - field).as("trailing padding of %s.%s", type.getSimpleName(), name)
            .isGreaterThanOrEqualTo(BYTES);
    }

    @Test
    void theQueuesIndexesAreALineApartAndAwayFromItsConstants() {
        long producer = offset(MpscIntQueue.class, "producerIndex");
        long limit = offset(MpscIntQueue.class, "producerLimit");
        long consumer = offset(MpscIntQueue.class, "consumerIndex");
        long constants = Math.max(offset(MpscIntQueue.class, "mask"), offset(MpscIntQueue.class, "slots"));
        assertThat(Math.min(producer, limit) - constants).isGreaterThanOrEqualTo(BYTES);
        assertThat(consumer - Math.max(producer, limit)).isGreaterThanOrEqualTo(BYTES);
    }

    /** The offset of field {@code name}, declared by {@code type} or one of its superclasses (the padding layers). */
    private static long offset(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field field = c.getDeclaredField(name);
                return (long) UNSAFE.getClass().getMethod("objectFieldOffset", Field.class).invoke(UNSAFE, field);
            } catch (NoSuchFieldException e) {
                // declared further up
            } catch (ReflectiveOperationException e) {
                throw new AssertionError("no offset of " + c.getSimpleName() + "." + name, e);
            }
        }
        throw new AssertionError("no field " + name + " in " + type.getSimpleName() + " or its superclasses");
    }

    private static final Object UNSAFE = theUnsafe();

    private static Object theUnsafe() {
        try {
            Field field = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return field.get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("sun.misc.Unsafe is needed to read field offsets", e);
        }
    }
}
