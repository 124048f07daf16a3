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
    /**
     * The allocator to share: one instance per JVM (per class loader), made when this class initializes, with the
     * defaults of {@link MagazineAllocatorConfig}, that is the built-in values or the {@code magalloc.*} system
     * properties set by then. Memory pooled by one allocator serves no other, so an application that makes its own
     * instances pools as many times over; use this one unless a setting must differ.
     */
    public static final MagazineByteBufAllocator DEFAULT = new MagazineByteBufAllocator();

    private final MagazineAllocatorConfig config;
    private final MemoryPool heap;
    private final MemoryPool direct;
    private final MagazineByteBufAllocatorMetric metric;

    /**
     * A new allocator with every default, as {@code builder().build()} makes it: its own pools, apart from
     * {@link #DEFAULT}'s.
     */
    public MagazineByteBufAllocator() {
        this(MagazineAllocatorConfig.DEFAULT_PREFER_DIRECT);
    }

    /**
     * A new allocator with every default but {@code preferDirect}, as
     * {@code builder().preferDirect(preferDirect).build()} makes it.
     *
     * @param preferDirect whether {@code buffer()} returns direct buffers; Netty turns it to heap buffers where it
     *                     cannot free direct memory reliably
     */
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
     *
     * @return the segment size of each size class in bytes, smallest first (16 B to 32 KiB); the caller may modify it
     */
    public static int[] sizeClasses() {
        int[] sizes = new int[SizeClasses.COUNT];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = SizeClasses.sizeOf(i);
        }
        return sizes;
    }

    /**
     * A builder for an allocator with settings of its own; it starts from the defaults (the built-in values or their
     * {@code magalloc.*} system properties), and each setter documents its default and range. Settings are checked
     * when the builder's {@code config()} or {@code build()} is called.
     *
     * @return a new builder; builders are not thread-safe
     */
    public static MagazineAllocatorConfig.Builder builder() {
        return new MagazineAllocatorConfig.Builder();
    }

    /**
     * The settings this allocator was built with, as given: {@link MagazineAllocatorConfig#preferDirect()} is the
     * preference, which Netty overrides with heap buffers where it cannot free direct memory reliably.
     *
     * @return this allocator's immutable configuration, the same object at every call
     */
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
     * shared magazines and the calling thread's own magazine return their empty chunks now, and each other
     * thread-local magazine returns its empty chunks at its next refill (so a trim run on each event loop empties
     * them all at once). Also ends the magazines of threads that died without cleaning up. Never needed to get memory
     * back from threads that are gone: their magazines give each chunk back as its last buffer is released.
     *
     * <p>Any thread may call it at any time; live buffers stay valid. It takes each shared magazine's lock in turn
     * and frees every pooled slab, so the allocations after it take memory from the system again: call it when memory
     * matters more than speed (after a load peak, say), not per request.
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

    /**
     * What this allocator holds, read live: each call of the returned object's methods reads the counters anew.
     *
     * @return the metric of this allocator, the same object at every call and as long-lived as the allocator
     */
    @Override
    public MagazineByteBufAllocatorMetric metric() {
        return metric;
    }

    /** The pool of one kind of memory; for tests of the allocator's parts. */
    MemoryPool pool(boolean isDirect) {
        return isDirect ? direct : heap;
    }
}
