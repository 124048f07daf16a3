package io.github.magalloc;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in a JVM of its own (a surefire execution, see the allocator's pom) started with a bad value for every
 * {@code magalloc.*} property: {@code sharedMagazines=12}, {@code reuseBudgetBytes=-5},
 * {@code maxLargeChunkSize=3000000}, {@code maxPooledSize=lots}, {@code decayMillis=-3}, {@code nativeTrimMillis=soon}, {@code debug=maybe}. Each is ignored with a warning
 * and its built-in default used, so {@link MagazineByteBufAllocator#DEFAULT} and the builder keep working: a bad
 * setting read while the class initialises must not make it fail ({@code ExceptionInInitializerError}, then
 * {@code NoClassDefFoundError} for every later use, even a valid {@code builder()} call).
 */
class BadSystemPropertiesTest {
    @Test
    void badPropertiesFallBackToTheDefaults() {
        assertThat(System.getProperty("magalloc.sharedMagazines")).as("started with the bad properties").isEqualTo("12");
        MagazineAllocatorConfig config = MagazineByteBufAllocator.DEFAULT.config();
        int cores = Runtime.getRuntime().availableProcessors();
        assertThat(config.sharedMagazines()).isEqualTo(Math.min(16, MagazineAllocatorConfig.ceilPow2(cores)));
        assertThat(config.reuseBudgetBytes()).isEqualTo(16L << 20);
        assertThat(config.maxLargeChunkSize()).isEqualTo(8 << 20);
        assertThat(config.maxPooledSize()).isEqualTo(1 << 20);
        assertThat(config.decayMillis()).isEqualTo(1000);
        assertThat(config.nativeTrimMillis()).isEqualTo(1000);
        assertThat(config.debug()).isFalse();
        MagazineByteBufAllocator.DEFAULT.directBuffer(64).writeLong(1).release();
        MagazineByteBufAllocator.builder().sharedMagazines(2).build().heapBuffer(64).release();
    }
}
