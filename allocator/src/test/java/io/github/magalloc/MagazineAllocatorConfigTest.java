package io.github.magalloc;

import io.github.magalloc.core.SizeClasses;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every rule of the configuration: the builder rejects each bad value with an {@link IllegalArgumentException} that
 * names the setting and the value, and accepts each edge of the allowed range. (A bad system property is not an
 * exception: {@code BadSystemPropertiesTest} runs in a JVM started with several.)
 */
class MagazineAllocatorConfigTest {
    private static final int KIB = 1024;

    @Test
    void reuseBudgetMustNotBeNegative() {
        rejects(MagazineByteBufAllocator.builder().reuseBudgetBytes(-1), "reuseBudgetBytes: -1");
        assertThat(MagazineByteBufAllocator.builder().reuseBudgetBytes(0).config().reuseBudgetBytes()).isZero();
    }

    @Test
    void decayMillisIsFromZeroToAnHour() {
        rejects(MagazineByteBufAllocator.builder().decayMillis(-1), "decayMillis: -1");
        rejects(MagazineByteBufAllocator.builder().decayMillis(3_600_001), "decayMillis: 3600001");
        assertThat(MagazineByteBufAllocator.builder().decayMillis(0).config().decayMillis()).isZero();
        assertThat(MagazineByteBufAllocator.builder().decayMillis(3_600_000).config().decayMillis())
            .isEqualTo(3_600_000);
    }

    @Test
    void nativeTrimMillisIsFromZeroToAnHour() {
        rejects(MagazineByteBufAllocator.builder().nativeTrimMillis(-1), "nativeTrimMillis: -1");
        rejects(MagazineByteBufAllocator.builder().nativeTrimMillis(3_600_001), "nativeTrimMillis: 3600001");
        assertThat(MagazineByteBufAllocator.builder().nativeTrimMillis(0).config().nativeTrimMillis()).isZero();
        assertThat(MagazineByteBufAllocator.builder().nativeTrimMillis(3_600_000).config().nativeTrimMillis())
            .isEqualTo(3_600_000);
    }

    @Test
    void maxLargeChunkSizeIsAPowerOfTwoFrom512KiBTo1GiB() {
        rejects(MagazineByteBufAllocator.builder().maxLargeChunkSize(3_000_000), "maxLargeChunkSize: 3000000");
        rejects(MagazineByteBufAllocator.builder().maxLargeChunkSize(256 * KIB).maxPooledSize(64 * KIB),
            "maxLargeChunkSize: 262144");
        rejects(MagazineByteBufAllocator.builder().maxLargeChunkSize(Integer.MIN_VALUE), "maxLargeChunkSize");
        assertThat(MagazineByteBufAllocator.builder().maxLargeChunkSize(512 * KIB).maxPooledSize(512 * KIB).config()
            .maxLargeChunkSize()).isEqualTo(512 * KIB);
        assertThat(MagazineByteBufAllocator.builder().maxLargeChunkSize(1 << 30).config().maxLargeChunkSize())
            .isEqualTo(1 << 30);
    }

    @Test
    void maxPooledSizeIsFromTheLargestSizeClassToMaxLargeChunkSize() {
        rejects(MagazineByteBufAllocator.builder().maxPooledSize(100), "maxPooledSize: 100");
        rejects(MagazineByteBufAllocator.builder().maxPooledSize(32 * KIB - 1), "maxPooledSize: 32767");
        rejects(MagazineByteBufAllocator.builder().maxLargeChunkSize(512 * KIB).maxPooledSize(512 * KIB + 1),
            "maxPooledSize: 524289");
        assertThat(MagazineByteBufAllocator.builder().maxPooledSize(SizeClasses.MAX_SIZE).config().maxPooledSize())
            .isEqualTo(SizeClasses.MAX_SIZE);
    }

    /** Lowering only maxLargeChunkSize below the default maxPooledSize lowers that default with it, not an error. */
    @Test
    void anUnsetMaxPooledSizeFollowsASmallerMaxLargeChunkSize() {
        assertThat(MagazineByteBufAllocator.builder().maxLargeChunkSize(512 * KIB).config().maxPooledSize())
            .isEqualTo(512 * KIB);
        assertThat(MagazineByteBufAllocator.builder().maxLargeChunkSize(1 << 30).config().maxPooledSize())
            .isEqualTo(MagazineAllocatorConfig.DEFAULT_MAX_POOLED_SIZE);
    }

    @Test
    void sharedMagazinesIsAPowerOfTwoFrom1To1024() {
        rejects(MagazineByteBufAllocator.builder().sharedMagazines(12), "sharedMagazines: 12");
        rejects(MagazineByteBufAllocator.builder().sharedMagazines(0), "sharedMagazines: 0");
        rejects(MagazineByteBufAllocator.builder().sharedMagazines(-2), "sharedMagazines: -2");
        rejects(MagazineByteBufAllocator.builder().sharedMagazines(2048), "sharedMagazines: 2048");
        assertThat(MagazineByteBufAllocator.builder().sharedMagazines(1).config().sharedMagazines()).isEqualTo(1);
        assertThat(MagazineByteBufAllocator.builder().sharedMagazines(1024).config().sharedMagazines()).isEqualTo(1024);
    }

    @Test
    void aRejectedSettingLeavesTheClassAndOtherAllocatorsUsable() {
        rejects(MagazineByteBufAllocator.builder().sharedMagazines(3), "sharedMagazines: 3");
        MagazineByteBufAllocator fine = MagazineByteBufAllocator.builder().sharedMagazines(4).build();
        fine.heapBuffer(16).release();
        MagazineByteBufAllocator.DEFAULT.directBuffer(16).release();
    }

    private static void rejects(MagazineAllocatorConfig.Builder builder, String message) {
        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }
}
