package io.github.magalloc.core;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;

/**
 * Who runs a thread magazine's decay ticks (protocol 7 (decay)): its thread's event loop ({@link EventLoopDecay}),
 * the owner itself on its slow paths ({@link SlowPathDecay}: a thread that runs no executor, or whose executor
 * refuses tasks), or nobody ({@link #NONE}: the period is 0). The magazine calls every method without knowing which
 * it has; none of them throws.
 */
abstract class MagazineDecay {
    /** No ticks: the magazine gives memory back at refills after {@code trim()} and when its thread ends. */
    static final MagazineDecay NONE = new MagazineDecay() {
        @Override
        void onChunkTaken() {
        }

        @Override
        void onSlowPath() {
        }

        @Override
        void requestCollect() {
        }

        @Override
        boolean runsWhenIdle() {
            return false;
        }

        @Override
        boolean ticksOnSlowPaths() {
            return false;
        }
    };

    /**
     * The decay of a magazine that the calling thread is creating for itself: ticks on the calling thread's event
     * loop if it runs one (a task scheduled there runs on this very thread), else on the thread's own slow paths.
     */
    static MagazineDecay forCurrentThread(ThreadMagazine magazine, long periodMillis) {
        if (periodMillis <= 0) {
            return NONE;
        }
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        return loop != null && runsOnCurrentThread(loop) ? new EventLoopDecay(magazine, loop, periodMillis)
            : new SlowPathDecay(magazine, periodMillis);
    }

    /** Whether {@code loop} runs its tasks on the calling thread; an executor that throws here is not trusted with any. */
    private static boolean runsOnCurrentThread(EventExecutor loop) {
        try {
            return loop.inEventLoop();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Owner, cold: a chunk came into the magazine (from the reuse pool or the system); ticks start if they had stopped. */
    abstract void onChunkTaken();

    /** Owner, cold: a refill or a large allocation, while {@link #ticksOnSlowPaths()}; a tick due runs here. */
    abstract void onSlowPath();

    /** Owner: whether the ticks run on the owner's slow paths now ({@link #onSlowPath}), no executor running them. */
    abstract boolean ticksOnSlowPaths();

    /** Any thread: asks the owner to collect what a release gave back (a large chunk emptied) soon. */
    abstract void requestCollect();

    /** Whether ticks run while the owner allocates nothing (on its event loop), which can then unpin the magazine. */
    abstract boolean runsWhenIdle();
}
