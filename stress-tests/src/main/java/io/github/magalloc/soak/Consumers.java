package io.github.magalloc.soak;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The consumers' side of the soak: each consumer thread runs {@link #consume} on an inbox of its own. It checks the
 * pattern of every buffer it gets, then releases it, passes it on, slices or duplicates it (retain), grows it, or
 * holds it for a while, and releases orphans on the side. Consumers end holding live buffers, which become orphans.
 */
final class Consumers {
    private static final int MAX_HELD = 64;
    private static final int MAX_GROWN = 2 << 20;

    private final List<BlockingQueue<Message>> inboxes;
    private final Queue<Message> orphans;
    private final Ledger ledger;
    private final BooleanSupplier stop;
    private final Consumer<String> fail;
    /** Hand-offs of producers and consumers together. */
    private final LongAdder handOffs;

    final LongAdder slices = new LongAdder();
    final LongAdder duplicates = new LongAdder();
    final LongAdder grows = new LongAdder();

    /**
     * Consumers passing buffers on to any of {@code inboxes}; each ends once {@code stop} is true and its inbox is
     * empty.
     */
    Consumers(List<BlockingQueue<Message>> inboxes, Queue<Message> orphans, Ledger ledger, BooleanSupplier stop,
              Consumer<String> fail, LongAdder handOffs) {
        this.inboxes = inboxes;
        this.orphans = orphans;
        this.ledger = ledger;
        this.stop = stop;
        this.fail = fail;
        this.handOffs = handOffs;
    }

    void consume(BlockingQueue<Message> inbox) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<Message> held = new ArrayList<>();
        try {
            while (true) {
                Message m = inbox.poll(2, TimeUnit.MILLISECONDS);
                if (m == null) {
                    if (stop.getAsBoolean() && inbox.isEmpty()) {
                        break;
                    }
                    if (!held.isEmpty()) {
                        Message old = held.remove(random.nextInt(held.size()));
                        ledger.check(old, "held");
                        ledger.release(old);
                    }
                    continue;
                }
                ledger.check(m, "received");
                act(m, held, random);
                if (random.nextInt(16) == 0) {
                    Message orphan = orphans.poll();
                    if (orphan != null) {
                        ledger.check(orphan, "orphan");
                        ledger.release(orphan);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            orphans.addAll(held); // consumers end holding live buffers too
        }
    }

    private void act(Message m, List<Message> held, ThreadLocalRandom random) throws InterruptedException {
        Allocation a = m.allocation;
        int choice = random.nextInt(100);
        boolean whole = m.view == a.root;
        if (choice < 50) {
            ledger.release(m);
        } else if (choice < 65) {
            passOn(m, random);
        } else if (choice < 73 && whole && a.root.capacity() >= 16) {
            // A slice at an 8-aligned offset, passed on; the holder keeps its own reference.
            int capacity = a.root.capacity();
            int from = random.nextInt(capacity / 8) * 8;
            int length = 1 + random.nextInt(capacity - from);
            a.holders.incrementAndGet();
            passOn(new Message(a, a.root.retainedSlice(from, length), from), random);
            slices.increment();
            keep(m, held, random);
        } else if (choice < 80) {
            a.holders.incrementAndGet();
            keep(new Message(a, m.view.retainedDuplicate(), m.offset), held, random);
            duplicates.increment();
            passOn(m, random);
        } else if (choice < 88 && whole && a.holders.get() == 1) {
            grow(a, random);
            passOn(m, random);
        } else {
            keep(m, held, random);
        }
    }

    private void keep(Message m, List<Message> held, ThreadLocalRandom random) {
        if (held.size() >= MAX_HELD) {
            Message old = held.set(random.nextInt(held.size()), m);
            ledger.check(old, "held");
            ledger.release(old);
        } else {
            held.add(m);
        }
    }

    private void passOn(Message m, ThreadLocalRandom random) {
        BlockingQueue<Message> inbox = inboxes.get(random.nextInt(inboxes.size()));
        if (inbox.offer(m)) {
            handOffs.increment();
        } else {
            ledger.release(m);
        }
    }

    /** Sole holder only: grows in place or moves; the old bytes must survive, the new ones get the pattern. */
    private void grow(Allocation a, ThreadLocalRandom random) {
        ByteBuf root = a.root;
        int old = root.capacity();
        int wanted = Math.min(MAX_GROWN, old + 1 + random.nextInt(Math.max(1, old)));
        if (wanted <= old) {
            return;
        }
        ledger.unregister(a); // the old memory may be freed and reused by the move
        root.capacity(wanted);
        int bad = DataPattern.check(root, 0, a.seed, old);
        if (bad >= 0) {
            fail.accept("grow from " + old + " to " + wanted + " lost byte " + bad + " of " + a.range);
        }
        DataPattern.fill(root, a.seed, old, wanted);
        root.writerIndex(wanted);
        ledger.register(a, Thread.currentThread().getName() + " (grown)");
        grows.increment();
    }
}
