package io.github.magalloc.core;

import io.github.magalloc.TestAccess;
import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.buffer.Slab;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class ChunkListTest {
    private final MemoryPool pool = TestAccess.pool(MagazineByteBufAllocator.builder().build(), false);
    private final Magazine magazine = new Stripe(pool.supply());

    private SizeClassChunk newChunk() {
        return new SizeClassChunk(Slab.heap(64 * 1024), pool.supply().context, magazine, SizeClasses.indexOf(1024));
    }

    @Test
    void takesChunksInTheOrderTheyWereAdded() {
        ChunkList list = new ChunkList();
        SizeClassChunk a = newChunk();
        SizeClassChunk b = newChunk();
        SizeClassChunk c = newChunk();
        list.add(a);
        list.add(b);
        list.add(c);
        list.remove(b);
        assertThat(b.list).isNull();
        assertThat(pollFirst(list)).isSameAs(a);
        assertThat(pollFirst(list)).isSameAs(c);
        assertThat(pollFirst(list)).isNull();
        assertThat(list.size()).isZero();
    }

    @Test
    void seededRandomAddsAndRemovesMatchALinkedListModel() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        List<SizeClassChunk> chunks = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            chunks.add(newChunk());
        }
        ChunkList list = new ChunkList();
        LinkedList<SizeClassChunk> model = new LinkedList<>();
        for (int step = 0; step < 20_000; step++) {
            SizeClassChunk chunk = chunks.get(random.nextInt(chunks.size()));
            int op = random.nextInt(3);
            if (chunk.list == null && op < 2) {
                list.add(chunk);
                model.addLast(chunk);
            } else if (chunk.list != null && op == 2) {
                list.remove(chunk);
                model.remove(chunk);
            } else if (op == 0) {
                assertThat(pollFirst(list)).as("seed %d, step %d", seed, step).isSameAs(model.pollFirst());
            }
            List<SizeClassChunk> walked = new ArrayList<>();
            for (SizeClassChunk c = list.first(); c != null; c = c.next) {
                walked.add(c);
            }
            assertThat(walked).as("seed %d, step %d", seed, step).containsExactlyElementsOf(model);
            assertThat(list.size()).isEqualTo(model.size());
        }
    }

    /** Removes and returns the chunk added first, as a refill takes the partial chunk that waited longest. */
    private static SizeClassChunk pollFirst(ChunkList list) {
        SizeClassChunk first = list.first();
        if (first != null) {
            list.remove(first);
        }
        return first;
    }
}
