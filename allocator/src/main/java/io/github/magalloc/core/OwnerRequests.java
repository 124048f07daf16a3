package io.github.magalloc.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What other threads ask of a thread magazine's owner, who does it at its next refill or large allocation, or in a
 * task of its event loop: a trim, a give-back on a shortage (protocol 9 (making room)), a look after its executor
 * refused a task. Any thread writes its reason, then the flag; the owner clears the flag, then takes the reasons. Both
 * volatile: Dekker's handshake, so a reason written after the owner's look sets the flag again, and the owner's fast
 * path reads one flag only at its slow paths.
 */
final class OwnerRequests {
    /** Set after any reason's write; cleared by the owner before it takes the reasons. */
    private volatile boolean any;
    /** Set by {@code trim()} from any thread. */
    private volatile boolean trim;
    /**
     * The round of a shortage that asked for a give-back and has no answer yet, else null: set by the asking thread,
     * exchanged for null by whoever answers (the owner once it gave back, or the magazine's end), so each round is
     * answered once.
     */
    private volatile GiveBackRound giveBackRound;

    private static final VarHandle GIVE_BACK_ROUND;

    static {
        try {
            GIVE_BACK_ROUND = MethodHandles.lookup().findVarHandle(OwnerRequests.class, "giveBackRound",
                GiveBackRound.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Any thread: asks for a trim. */
    void requestTrim() {
        trim = true;
        requestLook();
    }

    /** Any thread: asks for a give-back answered to {@code round} (counted there before: its answer never comes first). */
    void requestGiveBack(GiveBackRound round) {
        GIVE_BACK_ROUND.setVolatile(this, round);
        requestLook();
    }

    /** Any thread, after writing its reason: the owner looks at the reasons at its next slow path. */
    void requestLook() {
        any = true;
    }

    /** Owner: whether any reason waits; one volatile read when none does. */
    boolean lvAny() {
        return any;
    }

    /** Owner, before it takes the reasons: a reason written from now on sets the flag again. */
    void clear() {
        any = false;
    }

    /** Owner: whether a trim was asked for since the last take; clears it. */
    boolean takeTrim() {
        if (!trim) {
            return false;
        }
        trim = false;
        return true;
    }

    /**
     * The round waiting for this magazine's give-back, taken (an exchange, so of the owner and the end one gets it), or
     * null.
     */
    GiveBackRound takeGiveBackRound() {
        return giveBackRound == null ? null : (GiveBackRound) GIVE_BACK_ROUND.getAndSet(this, null);
    }
}
