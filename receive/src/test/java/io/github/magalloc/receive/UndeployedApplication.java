package io.github.magalloc.receive;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultEventLoop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * The application {@link UndeployTest} deploys, in a class loader of its own: it uses magalloc's {@code DEFAULT} on
 * its calling thread, on a Netty event loop it then shuts down, and (JDK 21+) on a virtual thread, and makes a
 * receive allocator; it keeps nothing.
 */
public final class UndeployedApplication implements Callable<String> {
    @Override
    public String call() throws Exception {
        ByteBufAllocator alloc = MagazineByteBufAllocator.DEFAULT;
        use(alloc);
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            loop.submit(() -> use(alloc)).get(30, TimeUnit.SECONDS);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
        loop.terminationFuture().sync();
        Thread virtual = startVirtual(() -> use(alloc));
        if (virtual != null) {
            virtual.join(TimeUnit.SECONDS.toMillis(30));
        }
        new RightSizingRecvByteBufAllocator();
        return "used";
    }

    /** Heap and direct buffers, small, large and huge, allocated and released. */
    private static void use(ByteBufAllocator alloc) {
        for (int size : new int[] {64, 4096, 64 * 1024, 2 << 20}) {
            alloc.heapBuffer(size).writeZero(size).release();
            alloc.directBuffer(size).writeZero(size).release();
        }
    }

    /** {@code Thread.ofVirtual().start(task)} on JDK 21+, by name (the sources are JDK 17's); null before. */
    private static Thread startVirtual(Runnable task) {
        if (Runtime.version().feature() < 21) {
            return null;
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Object ofVirtual = lookup.findStatic(Thread.class, "ofVirtual",
                MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual"))).invoke();
            return (Thread) lookup.findVirtual(builder, "start", MethodType.methodType(Thread.class, Runnable.class))
                .invoke(ofVirtual, task);
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.ofVirtual() is there but failed", e);
        }
    }
}
