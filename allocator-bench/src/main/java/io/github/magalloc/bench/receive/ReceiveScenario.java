package io.github.magalloc.bench.receive;

import io.github.magalloc.receive.ReceiveMetricProvider;
import io.github.magalloc.workload.AllocatorKind;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The receive scenario: slow (or fast) clients POST 64 KiB bodies to a Netty HTTP server on loopback whose
 * aggregator keeps each request's slices of the read buffers until the request is released. How much memory the
 * server's allocator holds for the bytes in flight depends on the receive setting, which sizes each read buffer.
 *
 * <p>{@link #run} starts the server ({@link ReceiveServer}) and the clients ({@link ReceiveClients}) in this JVM,
 * lets them run for the warm-up, then for the measured window samples the allocator's used memory and the bytes in
 * flight every {@value #SAMPLE_MILLIS} ms; then lets each client finish its request and stop, and reads the bytes
 * still in flight and the used memory with nothing in flight (the allocator's idle footprint for this traffic). Every wait is bounded; {@link OutOfMemoryError}s on the server are counted, not fatal.
 */
public final class ReceiveScenario {
    static final long SAMPLE_MILLIS = 5;
    /**
     * The least a measured window holds: it lasts its set length, and on a machine too busy to sample or serve within
     * it, until it has this many samples and a request ({@link #WINDOW_HANG_SECONDS} more at most, a bound only a hang
     * reaches).
     */
    static final int MIN_SAMPLES = 21;
    private static final long WINDOW_HANG_SECONDS = 120;
    private static final long STOP_TIMEOUT_SECONDS = 60;

    private ReceiveScenario() {
    }

    /** Runs {@code config} once, in this JVM. */
    public static ReceiveResult run(ReceiveConfig config)
            throws InterruptedException, ExecutionException, TimeoutException {
        ByteBufAllocator allocator = config.allocator().create(config.direct());
        RecvByteBufAllocator receive = config.setting().create();
        try (ReceiveServer server = new ReceiveServer(allocator, config.direct(), receive,
                config.setting().elasticsearchTrim());
             ReceiveClients clients = new ReceiveClients(server.address(), config.mode(), config.clients())) {
            clients.start();
            sleep(config.warmupSeconds());

            long requestsBefore = server.counters.requests.sum();
            long allocatedBefore = server.workerAllocatedBytes();
            long start = System.nanoTime();
            Sampler sampler = new Sampler(() -> AllocatorKind.usedMemory(allocator), server.counters.inFlight::get);
            sampler.start();
            sleep(config.measureSeconds());
            awaitLeastWindow(sampler, () -> server.counters.requests.sum() - requestsBefore);
            long requests = server.counters.requests.sum() - requestsBefore;
            long allocated = server.workerAllocatedBytes() - allocatedBefore;
            double seconds = (System.nanoTime() - start) / 1e9;
            sampler.finish();

            boolean stopped = clients.stop(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long inFlightAfterStop = server.inFlightBytesOnLoop();
            // At once, before any decay tick: what the allocator holds for this traffic with nothing in flight.
            long idleUsed = AllocatorKind.usedMemory(allocator);
            ServerCounters c = server.counters;
            return new ReceiveResult(config, seconds, requests, sampler.meanUsed(), sampler.meanInFlight(),
                sampler.maxUsed, sampler.samples, allocatedBefore < 0 || requests == 0 ? Double.NaN
                    : (double) allocated / requests,
                c.outOfMemoryErrors.sum(), c.otherErrors.sum(), c.requests.sum(), c.badRequests.sum(),
                c.readBuffers(), clients.reconnects.sum(), clients.errors.sum(),
                receive instanceof ReceiveMetricProvider ? ((ReceiveMetricProvider) receive).metric() : null,
                stopped, inFlightAfterStop, idleUsed);
        }
    }

    /** After the window's set length: until it holds {@link #MIN_SAMPLES} samples and a request. */
    private static void awaitLeastWindow(Sampler sampler, LongSupplier requests) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WINDOW_HANG_SECONDS);
        while ((sampler.samples < MIN_SAMPLES || requests.getAsLong() < 1) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    private static void sleep(double seconds) throws InterruptedException {
        long millis = Math.round(seconds * 1000);
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }

    /** Samples used memory and bytes in flight every {@value #SAMPLE_MILLIS} ms on a thread of its own. */
    private static final class Sampler extends Thread {
        private final LongSupplier used;
        private final LongSupplier inFlight;
        private volatile boolean done;
        private double usedSum;
        private double inFlightSum;
        private long maxUsed = -1;
        /** Written by the sampler only; volatile, as the window's end reads it meanwhile. */
        private volatile int samples;

        Sampler(LongSupplier used, LongSupplier inFlight) {
            super("receive-sampler");
            setDaemon(true);
            this.used = used;
            this.inFlight = inFlight;
        }

        @Override
        public void run() {
            long next = System.nanoTime();
            while (!done) {
                try {
                    long u = used.getAsLong();
                    long f = inFlight.getAsLong();
                    usedSum += u;
                    inFlightSum += f;
                    maxUsed = Math.max(maxUsed, u);
                    samples++;
                } catch (OutOfMemoryError e) {
                    // a sample lost to a full heap: the server counts its own
                }
                next += TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS);
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                } else {
                    next = System.nanoTime();
                }
            }
        }

        /** Stops sampling; the sums are then safe to read (join). */
        void finish() throws InterruptedException {
            done = true;
            join(TimeUnit.SECONDS.toMillis(10));
        }

        double meanUsed() {
            return samples == 0 ? Double.NaN : usedSum / samples;
        }

        double meanInFlight() {
            return samples == 0 ? Double.NaN : inFlightSum / samples;
        }
    }
}
