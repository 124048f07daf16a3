package io.github.magalloc.buffer;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.TestAccess;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reference count {@link MagByteBuf} keeps itself (not Netty's {@code RefCnt} object): every bad call is
 * refused with an exception that names the problem and leaves the count, the contents and the memory as they were.
 * Netty's buffer suites (io.netty.buffer.Magalloc*ByteBufTest) cover the rest of the contract; the races are
 * jcstress tests (DoubleReleaseStress, SharedBufferReleaseStress, RetainReleaseStress).
 */
class ReferenceCountTest {
    private final MagazineByteBufAllocator allocator = MagazineByteBufAllocator.builder().build();

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void nonPositiveIncrementsAndDecrementsAreRefusedAndChangeNothing(boolean direct) {
        ByteBuf buf = buffer(direct);
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> buf.retain(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("increment : " + bad);
            assertThatThrownBy(() -> buf.release(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("decrement : " + bad);
        }
        assertThat(buf.refCnt()).isEqualTo(1);
        assertThat(buf.release()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void releasingMoreThanHeldIsRefusedAndFreesNothing(boolean direct) {
        ByteBuf buf = buffer(direct).retain();
        buf.writeLong(0x0102030405060708L);
        assertThatThrownBy(() -> buf.release(3)).isInstanceOf(IllegalReferenceCountException.class)
            .hasMessageContaining("refCnt: 2").hasMessageContaining("decrement: 3");
        assertThat(buf.refCnt()).isEqualTo(2);
        ByteBuf other = buffer(direct);
        assertThat(TestAccess.magByteBuf(other)).as("the refused release gave nothing back")
            .isNotSameAs(TestAccess.magByteBuf(buf));
        assertThat(buf.getLong(0)).isEqualTo(0x0102030405060708L);
        assertThat(buf.release(2)).isTrue();
        assertThat(buf.refCnt()).isZero();
        other.release();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void retainPastIntegerMaxIsRefusedAndKeepsTheCount(boolean direct) {
        ByteBuf buf = buffer(direct).retain(Integer.MAX_VALUE - 1);
        assertThat(buf.refCnt()).isEqualTo(Integer.MAX_VALUE);
        assertThatThrownBy(buf::retain).isInstanceOf(IllegalReferenceCountException.class)
            .hasMessageContaining("refCnt: " + Integer.MAX_VALUE);
        assertThatThrownBy(() -> buf.retain(Integer.MAX_VALUE)).isInstanceOf(IllegalReferenceCountException.class);
        assertThat(buf.refCnt()).isEqualTo(Integer.MAX_VALUE);
        assertThat(buf.release(Integer.MAX_VALUE - 1)).isFalse();
        assertThat(buf.release()).isTrue();
    }

    /** A stale retain must not revive the released buffer, nor touch the count of the next buffer of its memory. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void retainAfterReleaseIsRefusedAndLeavesTheNextOwnerAlone(boolean direct) {
        ByteBuf stale = buffer(direct);
        assertThat(stale.release()).isTrue();
        assertThatThrownBy(stale::retain).isInstanceOf(IllegalReferenceCountException.class)
            .hasMessageContaining("refCnt: 0").hasMessageContaining("increment: 1");
        assertThat(stale.refCnt()).isZero();
        ByteBuf next = buffer(direct);
        assertThat(next.refCnt()).isEqualTo(1);
        assertThat(next.release()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void onlyTheLastOfManyReleasesDeallocates(boolean direct) {
        ByteBuf buf = buffer(direct);
        for (int i = 0; i < 10; i++) {
            buf.retain();
        }
        assertThat(buf.retain(5).refCnt()).isEqualTo(16);
        assertThat(buf.release(5)).isFalse();
        for (int i = 0; i < 10; i++) {
            assertThat(buf.release()).isFalse();
        }
        assertThat(buf.refCnt()).isEqualTo(1);
        assertThat(buf.touch("hint")).isSameAs(buf);
        assertThat(buf.release()).isTrue();
        assertThatThrownBy(buf::release).isInstanceOf(IllegalReferenceCountException.class)
            .hasMessageContaining("refCnt: 0").hasMessageContaining("decrement: 1");
    }

    private ByteBuf buffer(boolean direct) {
        return direct ? allocator.directBuffer(256) : allocator.heapBuffer(256);
    }
}
