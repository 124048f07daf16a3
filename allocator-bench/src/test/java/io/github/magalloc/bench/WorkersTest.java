package io.github.magalloc.bench;

import io.github.magalloc.workload.AllocatorKind;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkersTest {
    private final EventExecutor loop = new DefaultEventExecutor();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void plainTestThreadIsPlain() {
        assertThat(Workers.PLAIN.matchesCurrentThread()).isTrue();
        assertThat(Workers.EVENT_LOOP.matchesCurrentThread()).isFalse();
    }

    @Test
    void taskInsideEventExecutorIsEventLoop() throws Exception {
        assertThat(loop.submit(Workers.EVENT_LOOP::matchesCurrentThread).get()).isTrue();
        assertThat(loop.submit(Workers.PLAIN::matchesCurrentThread).get()).isFalse();
    }

    @Test
    void fastThreadLocalThreadWithoutExecutorIsNeither() throws Exception {
        boolean[] seen = new boolean[2];
        Thread t = new FastThreadLocalThread(() -> {
            seen[0] = Workers.EVENT_LOOP.matchesCurrentThread();
            seen[1] = Workers.PLAIN.matchesCurrentThread();
        });
        t.start();
        t.join();
        assertThat(seen).containsExactly(false, false);
    }

    @Test
    void verifyFailsLoudlyOnTheWrongThreadKind() {
        ByteBufAllocator adaptive = AllocatorKind.ADAPTIVE.create(true);
        assertThatThrownBy(() -> Workers.EVENT_LOOP.verify(AllocatorKind.ADAPTIVE, adaptive))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("-Djmh.executor=CUSTOM");
        assertThatThrownBy(() -> loop.submit(() -> Workers.PLAIN.verify(AllocatorKind.ADAPTIVE, adaptive)).get())
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void adaptiveUsesThreadLocalMagazinesOnlyInsideAnEventExecutor() throws Exception {
        // Netty's low-memory mode (max heap <= 512 MiB) would disable them: surefire runs with -Xmx1g.
        ByteBufAllocator adaptive = AllocatorKind.ADAPTIVE.create(true);
        adaptive.directBuffer(64).release();
        assertThat(AdaptiveThreadLocalProbe.usesThreadLocalMagazines(adaptive)).isFalse();
        boolean onLoop = loop.submit(() -> {
            adaptive.directBuffer(64).release();
            return AdaptiveThreadLocalProbe.usesThreadLocalMagazines(adaptive);
        }).get();
        assertThat(onLoop).isTrue();
        // and verify() accepts both correct pairings
        Workers.PLAIN.verify(AllocatorKind.ADAPTIVE, adaptive);
        loop.submit(() -> Workers.EVENT_LOOP.verify(AllocatorKind.ADAPTIVE, adaptive)).get();
    }
}
