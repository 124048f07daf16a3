package io.github.magalloc.core;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;

/**
 * Who runs a thread magazine's decay ticks (protocol 7 (decay)): its thread's event loop
 * ({@link EventLoopDecay}), or nobody ({@link #NONE}: the thread runs no executor, or the period is 0). The
 * magazine calls both methods without knowing which it has.
 */
abstract class MagazineDecay {
    /** No ticks: the magazine gives memory back at refills after {@code trim()} and when its thread ends. */
    static final MagazineDecay NONE = new MagazineDecay() {
        @Override
        void onChunkTaken() {
        }

        @Override
        void requestCollect() {
        }
    };

    /**
     * The decay of a magazine that the calling thread is creating for itself: ticks on the calling thread's event
     * loop if it runs one (a task scheduled there runs on this very thread), else none.
     */
    static MagazineDecay forCurrentThread(ThreadMagazine magazine, long periodMillis) {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (periodMillis <= 0 || loop == null || !loop.inEventLoop()) {
            return NONE;
        }
        return new EventLoopDecay(magazine, loop, periodMillis);
    }

    /** Owner, cold: a chunk came into the magazine (from the reuse pool or the system); ticks start if they had stopped. */
    abstract void onChunkTaken();

    /** Any thread: asks the owner to collect what a release gave back (a large chunk emptied) soon. */
    abstract void requestCollect();
}
