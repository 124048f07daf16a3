package io.github.magalloc;

import io.github.magalloc.core.MemoryPool;
import io.github.magalloc.core.PoolSettings;
import io.github.magalloc.core.SizeClasses;
import io.github.magalloc.jfr.JfrEvents;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocatorMetricProvider;

/**
 * A pooled {@link io.netty.buffer.ByteBufAllocator}: thread-local magazines of size-classed chunks with lock-free,
 * atomic-free allocation and owner release, a byte-budgeted slab reuse pool, adaptive large chunks and unpooled
 * huge buffers. A drop-in replacement for Netty's pooled and adaptive allocators:
 *
 * <pre>{@code
 * ServerBootstrap b = new ServerBootstrap()
 *     .option(ChannelOption.ALLOCATOR, MagazineByteBufAllocator.DEFAULT)
 *     .childOption(ChannelOption.ALLOCATOR, MagazineByteBufAllocator.DEFAULT);
 * }</pre>
 *
 * <p>Event-loop threads ({@code FastThreadLocalThread}s that clean up their thread locals) get a magazine of their
 * own; other threads share a few striped magazines unless they {@link #attachCurrentThread() opt in}. See
 * {@code docs/design.md} for how it works and {@code docs/tuning.md} for the settings.
 */
public final class MagazineByteBufAllocator extends AbstractByteBufAllocator implements ByteBufAllocatorMetricProvider {
    public static final MagazineByteBufAllocator DEFAULT = new MagazineByteBufAllocator();

    private final MagazineAllocatorConfig config;
    private final MemoryPool heap;
    private final MemoryPool direct;
    private final MagazineByteBufAllocatorMetric metric;

    public MagazineByteBufAllocator() {
        this(MagazineAllocatorConfig.DEFAULT_PREFER_DIRECT);
    }

    public MagazineByteBufAllocator(boolean preferDirect) {
        this(builder().preferDirect(preferDirect).config());
    }

    MagazineByteBufAllocator(MagazineAllocatorConfig config) {
        super(config.preferDirect());
        this.config = config;
        PoolSettings settings = config.poolSettings();
        // The allocator's identity hash names it in flight-recorder events, as in Micrometer's allocator metrics.
        int id = System.identityHashCode(this);
        this.heap = new MemoryPool(this, false, settings, JfrEvents.forPool(id, false));
        this.direct = new MemoryPool(this, true, settings, JfrEvents.forPool(id, true));
        JfrEvents.watchRequests(heap);
        JfrEvents.watchRequests(direct);
        this.metric = new MagazineByteBufAllocatorMetric(heap, direct);
    }

    /**
     * The sizes of the size classes, ascending (a new array each call): a request up to the last one takes a segment
     * of the smallest class that holds it, with nothing else rounded up; a larger one takes whole 8 KiB pages. For
     * code that sizes buffers to fit the classes (a receive allocator's guesses).
     */
    public static int[] sizeClasses() {
        int[] sizes = new int[SizeClasses.COUNT];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = SizeClasses.sizeOf(i);
        }
        return sizes;
    }

    public static MagazineAllocatorConfig.Builder builder() {
        return new MagazineAllocatorConfig.Builder();
    }

    public MagazineAllocatorConfig config() {
        return config;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return toLeakAwareBuffer(heap.allocate(initialCapacity, maxCapacity));
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return toLeakAwareBuffer(direct.allocate(initialCapacity, maxCapacity));
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    /**
     * Gives back memory that is pooled but free: empty slabs in the reuse pools go back to the system at once,
     * shared magazines return their empty chunks now, and each thread-local magazine returns its empty chunks at
     * its next refill. Also ends the magazines of threads that died without cleaning up. Never needed to get memory
     * back from threads that are gone: their magazines give each chunk back as its last buffer is released.
     */
    public void trim() {
        heap.trim();
        direct.trim();
    }

    /**
     * Gives the calling thread a magazine of its own, as event-loop threads have; for long-lived worker threads
     * that allocate a lot. Undo with {@link #detachCurrentThread()}; a thread that dies attached has its magazine
     * ended when the allocator next notices (a new thread magazine or {@link #trim()}).
     *
     * @throws IllegalStateException on a virtual thread: virtual threads share the striped magazines and their
     *         buffer objects (protocol 5a (virtual threads' objects) in docs/design.md)
     */
    public void attachCurrentThread() {
        heap.attachCurrentThread();
        direct.attachCurrentThread();
    }

    /**
     * Ends the calling thread's magazine, if any: it becomes shared, and its chunks go back as their buffers are
     * released, on whichever thread; live buffers stay valid.
     */
    public void detachCurrentThread() {
        heap.detachCurrentThread();
        direct.detachCurrentThread();
    }

    @Override
    public MagazineByteBufAllocatorMetric metric() {
        return metric;
    }

    /** The pool of one kind of memory; for tests of the allocator's parts. */
    MemoryPool pool(boolean isDirect) {
        return isDirect ? direct : heap;
    }
}
