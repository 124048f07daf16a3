package io.github.magalloc.core;

/**
 * The padding rule of this module, defined once here.
 *
 * <p><b>Rule:</b> a field that one thread writes on every operation and a field that other threads read or write
 * on every operation are at least {@value #BYTES} bytes apart, and so are an object's such fields and its
 * neighbours in the heap. {@value #BYTES} bytes are two cache lines: adjacent-line prefetch pulls lines in pairs.
 * The padding is declared as {@value #BYTES} {@code byte} fields in a class of its own in the object's hierarchy:
 * the JVM lays out a superclass's fields before its subclasses', and byte fields leave no alignment gap into which
 * it could move a subclass field. Pad only where other threads write or read on every operation (a magazine's
 * owner field, a chunk's remote side, a lock word, a queue's indexes); {@code PaddingTest} checks every padded
 * class.
 *
 * <p>This class pads the start of an object: its fields are never used. Why the start matters: an object allocated
 * right after another one that every thread reads (a magazine after the array that holds it) would share a cache
 * line with it, and each write to the object would invalidate that line for every reader.
 */
abstract class CacheLinePadding {
    /** Bytes of every padding block of this module. */
    static final int BYTES = 128;

    byte p000, p001, p002, p003, p004, p005, p006, p007, p008, p009, p010, p011, p012, p013, p014, p015;
    byte p100, p101, p102, p103, p104, p105, p106, p107, p108, p109, p110, p111, p112, p113, p114, p115;
    byte p200, p201, p202, p203, p204, p205, p206, p207, p208, p209, p210, p211, p212, p213, p214, p215;
    byte p300, p301, p302, p303, p304, p305, p306, p307, p308, p309, p310, p311, p312, p313, p314, p315;
    byte p400, p401, p402, p403, p404, p405, p406, p407, p408, p409, p410, p411, p412, p413, p414, p415;
    byte p500, p501, p502, p503, p504, p505, p506, p507, p508, p509, p510, p511, p512, p513, p514, p515;
    byte p600, p601, p602, p603, p604, p605, p606, p607, p608, p609, p610, p611, p612, p613, p614, p615;
    byte p700, p701, p702, p703, p704, p705, p706, p707, p708, p709, p710, p711, p712, p713, p714, p715;
}
