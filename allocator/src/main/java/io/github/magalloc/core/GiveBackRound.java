package io.github.magalloc.core;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One round of asking thread magazines to give back what they hold free (protocol 9 (making room)): the thread that
 * makes room counts each magazine it asks, each magazine answers once, on its owner's thread, after giving back, and
 * every answer wakes the requester to try its slab again.
 *
 * <pre>
 *   unanswered == asked - answered >= 0     (a magazine is counted before it can see the request; it answers by
 *                                            exchanging its request for null, so once)
 * </pre>
 */
final class GiveBackRound {
    private final Thread requester;
    /** Magazines asked that have not answered yet. */
    private final AtomicInteger unanswered = new AtomicInteger();

    GiveBackRound(Thread requester) {
        this.requester = requester;
    }

    /** The requester, before the magazine can see the request: one more answer to wait for. */
    void asked() {
        unanswered.incrementAndGet();
    }

    /** A magazine's owner gave back what it held free (or the magazine ended): the requester tries again. */
    void answered() {
        unanswered.decrementAndGet();
        LockSupport.unpark(requester);
    }

    /** Whether every magazine asked has answered: nothing more will come back in this round. */
    boolean allAnswered() {
        return unanswered.get() == 0;
    }

    /** Magazines asked that have not answered yet (threads busy or blocked elsewhere). */
    int unanswered() {
        return unanswered.get();
    }
}
