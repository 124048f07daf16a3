package io.github.magalloc.bench.floor;

import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The floor is only a fair floor if it does an allocator's job: no segment or object out twice, Netty's refCnt. */
class FloorPoolTest {
    @Test
    void liveBuffersNeverShareASegmentOrAnObject() {
        FloorPool pool = new FloorPool(256, 16);
        ArrayDeque<FloorByteBuf> live = new ArrayDeque<>();
        SplittableRandom random = new SplittableRandom(7);
        for (int step = 0; step < 10_000; step++) {
            if (live.size() < 16 && (live.isEmpty() || random.nextBoolean())) {
                FloorByteBuf buf = pool.allocate(1 + random.nextInt(256));
                assertThat(buf.refCnt()).isEqualTo(1);
                assertThat(buf.readerIndex()).isZero();
                assertThat(buf.writerIndex()).isZero();
                live.add(buf);
            } else {
                FloorByteBuf buf = random.nextBoolean() ? live.pollFirst() : live.pollLast();
                assertThat(buf.release()).isTrue();
            }
            Set<Integer> segments = new HashSet<>();
            Set<FloorByteBuf> objects = Collections.newSetFromMap(new IdentityHashMap<>());
            for (FloorByteBuf buf : live) {
                assertThat(segments.add(buf.segment)).as("segment %d live twice", buf.segment).isTrue();
                assertThat(objects.add(buf)).as("object live twice").isTrue();
            }
            assertThat(pool.freeSegments() + live.size()).isEqualTo(16);
        }
    }

    @Test
    void aSecondReleaseIsRefusedByNettysCountAndFreesNothing() {
        FloorPool pool = new FloorPool(256, 4);
        FloorByteBuf buf = pool.allocate(256);
        assertThat(buf.release()).isTrue();
        assertThatThrownBy(buf::release).isInstanceOf(IllegalReferenceCountException.class);
        assertThat(pool.freeSegments()).isEqualTo(4);
    }

    @Test
    void exhaustionAndOversizeAreClearErrors() {
        FloorPool pool = new FloorPool(256, 1);
        assertThatThrownBy(() -> pool.allocate(257)).hasMessageContaining("257 B asked");
        pool.allocate(256);
        assertThatThrownBy(() -> pool.allocate(1)).hasMessageContaining("free segments 0");
    }

    @Test
    void dataAccessorsThrowSoTheFloorCannotPassForABuffer() {
        FloorByteBuf buf = new FloorPool(256, 1).allocate(16);
        assertThatThrownBy(() -> buf.getByte(0)).isInstanceOf(UnsupportedOperationException.class);
    }
}
