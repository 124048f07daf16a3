package io.github.magalloc.soak;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The soak's checkers must be able to fail: a changed byte and an overlap are caught. */
class CheckersTest {
    @Test
    void patternCheckFindsAChangedByte() {
        ByteBuf buf = Unpooled.buffer(100);
        DataPattern.fill(buf, 42, 0, 100);
        assertThat(DataPattern.check(buf, 0, 42, 100)).isEqualTo(-1);
        assertThat(DataPattern.check(buf.slice(16, 50), 16, 42, 50)).isEqualTo(-1);
        assertThat(DataPattern.check(buf, 0, 43, 100)).as("other seed").isEqualTo(0);
        buf.setByte(61, buf.getByte(61) ^ 1);
        assertThat(DataPattern.check(buf, 0, 42, 100)).isEqualTo(61);
        assertThat(DataPattern.check(buf.slice(16, 50), 16, 42, 50)).isEqualTo(45);
    }

    @Test
    void registryFindsOverlaps() {
        LiveRanges ranges = new LiveRanges();
        byte[] array = new byte[100];
        LiveRanges.Range a = new LiveRanges.Range(array, 10, 20, "a");
        assertThat(ranges.add(a)).isNull();
        assertThat(ranges.add(new LiveRanges.Range(array, 19, 30, "b"))).contains("overlaps");
        assertThat(ranges.add(new LiveRanges.Range(array, 0, 11, "c"))).contains("overlaps");
        assertThat(ranges.add(new LiveRanges.Range(array, 12, 13, "d"))).contains("overlaps");
        assertThat(ranges.add(new LiveRanges.Range(new byte[100], 10, 20, "other array"))).isNull();
        LiveRanges.Range e = new LiveRanges.Range(array, 20, 30, "adjacent");
        assertThat(ranges.add(e)).isNull();
        ranges.remove(a);
        assertThat(ranges.add(new LiveRanges.Range(array, 0, 20, "reuse"))).isNull();
        assertThat(ranges.size()).isEqualTo(3);
    }
}
