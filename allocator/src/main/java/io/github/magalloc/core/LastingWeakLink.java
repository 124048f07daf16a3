package io.github.magalloc.core;

import java.lang.ref.WeakReference;

/**
 * A thread's weak link to its magazine once no decay tick can ever run while the thread is idle (no ticks at all,
 * ticks on the owner's slow paths, or an executor that refused them): nothing would ever weaken a strong link again,
 * so the link stays weak for the magazine's life, and {@link ThreadMagazines#current} follows it with a type check and
 * a {@code Reference.get()}, with no look at the decay. Its own class, not a flag: the type is the whole test.
 */
final class LastingWeakLink extends WeakReference<ThreadMagazine> {
    LastingWeakLink(ThreadMagazine magazine) {
        super(magazine);
    }
}
