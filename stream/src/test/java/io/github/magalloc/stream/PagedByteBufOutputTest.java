package io.github.magalloc.stream;

import io.github.magalloc.MagazineByteBufAllocator;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import static io.github.magalloc.stream.Encodings.jdk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Boundaries, strings, results and lifecycle. Random data uses fixed seeds, named in failure messages. */
class PagedByteBufOutputTest {

    private static byte[] bytes(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void writeEndingExactlyOnAPageEndAfterASeek(boolean direct) {
        GuardedPageAllocator alloc = new GuardedPageAllocator(1, direct);
        Model model = new Model();
        try (PagedByteBufOutput out = new PagedByteBufOutput(alloc, 16)) {
            byte[] first = bytes(1, 40);
            out.write(first);
            model.write(first);
            out.seek(5);
            model.seek(5);
            out.write(bytes(2, 11)); // ends on the end of page 0
            model.write(bytes(2, 11));
            assertThat(out.position()).isEqualTo(16);
            out.writeInt(0x01020304); // continues in the existing page 1
            model.write(jdk(d -> d.writeInt(0x01020304)));
            out.seek(40);
            model.seek(40);
            out.writeLong(42); // 40..48: ends on the end of page 2
            model.write(jdk(d -> d.writeLong(42)));
            assertThat(alloc.regions).hasSize(3);
            out.writeShort(7); // needs a new page
            model.write(jdk(d -> d.writeShort(7)));
            assertThat(alloc.regions).hasSize(4);
            alloc.checkGuards();
            assertThat(out.toByteArray()).isEqualTo(model.toByteArray());
        }
        assertThat(alloc.livePages()).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {96, 100})
    void seekingToTheMaximum(int maxSize) {
        GuardedPageAllocator alloc = new GuardedPageAllocator(maxSize, true); // pages start full of garbage
        try (PagedByteBufOutput out = new PagedByteBufOutput(alloc, 16, maxSize)) {
            out.writeByte(1);
            out.seek(maxSize);
            assertThat(out.size()).isEqualTo(maxSize);
            assertThat(alloc.regions).hasSize((maxSize + 15) / 16); // no page beyond the end
            assertThatThrownBy(() -> out.writeByte(2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> out.writeLong(2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> out.seek(maxSize + 1L)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> out.skip(1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(out.position()).isEqualTo(maxSize);
            byte[] expected = new byte[maxSize];
            expected[0] = 1; // and the gap reads as zeros, not as the pages' garbage
            assertThat(out.toByteArray()).isEqualTo(expected);
            out.seek(maxSize - 3); // a write that ends exactly on the maximum still fits
            out.writeShort(0x0102);
            out.writeByte(3);
            expected[maxSize - 3] = 1;
            expected[maxSize - 2] = 2;
            expected[maxSize - 1] = 3;
            assertThat(out.toByteArray()).isEqualTo(expected);
            alloc.checkGuards();
        }
    }

    @Test
    void defaultMaximumIsRejectedBeyondIntRange() {
        GuardedPageAllocator alloc = new GuardedPageAllocator(3, false);
        try (PagedByteBufOutput out = new PagedByteBufOutput(alloc)) {
            assertThatThrownBy(() -> out.seek(Integer.MAX_VALUE + 1L)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> out.seek(-1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(alloc.regions).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 16, 4096})
    void inputsThatAreExactMultiplesOfThePageSize(int pageSize) throws IOException {
        for (int pages = 1; pages <= 4; pages++) {
            byte[] data = bytes(pageSize * 10L + pages, pageSize * pages);
            for (int how = 0; how < 5; how++) {
                String ctx = "page " + pageSize + " x " + pages + ", way " + how;
                GuardedPageAllocator alloc = new GuardedPageAllocator(how, how % 2 == 0);
                try (PagedByteBufOutput out = new PagedByteBufOutput(alloc, pageSize)) {
                    switch (how) {
                        case 0 -> out.writeBytes(data);
                        case 1 -> out.writeBytes(ByteBuffer.wrap(data));
                        case 2 -> out.writeBytes(Unpooled.wrappedBuffer(data));
                        case 3 -> out.writeAllFrom(new ByteArrayInputStream(data));
                        default -> out.writeAllFrom(Channels.newChannel(new ByteArrayInputStream(data)));
                    }
                    assertThat(out.toByteArray()).as(ctx).isEqualTo(data);
                    // copying from a stream needs one probe past the end, which may leave one empty page
                    assertThat(alloc.regions.size()).as(ctx).isBetween(pages, how >= 3 ? pages + 1 : pages);
                    CompositeByteBuf detached = out.detach();
                    assertThat(detached.numComponents()).as(ctx).isEqualTo(pages);
                    assertThat(ByteBufToArray.of(detached)).as(ctx).isEqualTo(data);
                    detached.release();
                }
                alloc.checkGuards();
                assertThat(alloc.livePages()).as(ctx).isZero();
            }
        }
    }

    /** Strings with 2-, 3- and 4-byte characters and unpaired surrogates, over pages too small for one char. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 64})
    void multiPageStringsMatchTheJdk(int pageSize) throws IOException {
        Random r = new Random(pageSize);
        List<String> fixed = List.of("", "a", "é", "€", "😀", "a😀b", "\uD800", "\uDC00", "x\uD800", "\uDC00\uD800",
                "\uD800\uD800\uDC00", "\u0000", "\u07FF\u0800\uFFFF", "\uD83D\uDE00\uD83D");
        for (int i = 0; i < 200; i++) {
            String s = i < fixed.size() ? fixed.get(i) : Encodings.randomString(r, r.nextInt(5 * pageSize + 3), true);
            String ctx = "page " + pageSize + ", string " + i + " " + s.codePoints().mapToObj(Integer::toHexString).toList();
            GuardedPageAllocator alloc = new GuardedPageAllocator(i, i % 2 == 0);
            try (PagedByteBufOutput out = new PagedByteBufOutput(alloc, pageSize)) {
                out.writeByte(0x55); // so strings start at every alignment relative to page ends
                out.writeString(s);
                out.writeUtf8(s);
                out.writeUTF(s);
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                byte[] expected = Encodings.concat(Encodings.concat(new byte[] {0x55}, Encodings.string(s)),
                        Encodings.concat(utf8, jdk(d -> d.writeUTF(s))));
                assertThat(out.toByteArray()).as(ctx).isEqualTo(expected);
                alloc.checkGuards();
            }
        }
    }

    @Test
    void writeUtfThatIsTooLongWritesNothing() throws IOException {
        String s = "€".repeat(21846); // 65,538 bytes
        assertThatThrownBy(() -> jdk(d -> d.writeUTF(s))).hasCauseInstanceOf(UTFDataFormatException.class);
        try (PagedByteBufOutput out = new PagedByteBufOutput(new GuardedPageAllocator(1, false), 64)) {
            out.writeByte(9);
            assertThatThrownBy(() -> out.writeUTF(s)).isInstanceOf(UTFDataFormatException.class);
            assertThat(out.toByteArray()).containsExactly(9);
            String longest = "€".repeat(21845); // 65,535 bytes: allowed
            out.writeUTF(longest);
            assertThat(out.toByteArray()).isEqualTo(Encodings.concat(new byte[] {9}, jdk(d -> d.writeUTF(longest))));
        }
    }

    @Test
    void writeAsciiReplacesNonAscii() {
        try (PagedByteBufOutput out = new PagedByteBufOutput(new GuardedPageAllocator(1, false), 3)) {
            out.writeAscii("ab\u00e9c\u20ac\uD800");
            assertThat(out.toByteArray()).isEqualTo("ab?c??".getBytes(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void vintKnownEncodings() {
        check(o -> o.writeVInt(0), 0x00);
        check(o -> o.writeVInt(127), 0x7F);
        check(o -> o.writeVInt(128), 0x80, 0x01);
        check(o -> o.writeVInt(300), 0xAC, 0x02);
        check(o -> o.writeVInt(-1), 0xFF, 0xFF, 0xFF, 0xFF, 0x0F);
        check(o -> o.writeVLong(-1L), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01);
        check(o -> o.writeVLong(1L << 35), 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
        check(o -> o.writeZInt(0), 0x00);
        check(o -> o.writeZInt(-1), 0x01);
        check(o -> o.writeZInt(1), 0x02);
        check(o -> o.writeZInt(-64), 0x7F);
        check(o -> o.writeZInt(64), 0x80, 0x01);
        check(o -> o.writeZInt(Integer.MIN_VALUE), 0xFF, 0xFF, 0xFF, 0xFF, 0x0F);
        check(o -> o.writeZLong(Long.MIN_VALUE), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01);
    }

    private static void check(Consumer<PagedByteBufOutput> write, int... expected) {
        byte[] e = new byte[expected.length];
        for (int i = 0; i < e.length; i++) {
            e[i] = (byte) expected[i];
        }
        for (int pageSize : new int[] {1, 3, 16}) {
            try (PagedByteBufOutput out = new PagedByteBufOutput(new GuardedPageAllocator(pageSize, false), pageSize)) {
                write.accept(out);
                assertThat(out.toByteArray()).as("page %d", pageSize).isEqualTo(e);
            }
        }
    }

    @Test
    void reserveThenFillALengthPrefixAcrossAPageEnd() {
        GuardedPageAllocator alloc = new GuardedPageAllocator(5, true);
        try (PagedByteBufOutput out = new PagedByteBufOutput(alloc, 8)) {
            out.writeBytes(new byte[6]);
            int at = out.reserve(4); // bytes 6..10 straddle the page end
            out.writeString("hello, world");
            out.setInt(at, out.position() - at - 4);
            assertThat(out.position()).isEqualTo(6 + 4 + 13);
            byte[] expected = Encodings.concat(new byte[6],
                    Encodings.concat(jdk(d -> d.writeInt(13)), Encodings.string("hello, world")));
            assertThat(out.toByteArray()).isEqualTo(expected);
            assertThatThrownBy(() -> out.setInt(out.size() - 3, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> out.setByte(-1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            alloc.checkGuards();
        }
    }

    @Test
    void resultsTakenBeforeCloseSurviveThePoisonedPages() {
        GuardedPageAllocator alloc = new GuardedPageAllocator(7, false);
        PagedByteBufOutput out = new PagedByteBufOutput(alloc, 16);
        byte[] data = bytes(7, 50);
        out.write(data);
        byte[] copy = out.toByteArray();
        ByteBuf compact = out.compactCopy();
        ByteBuf pooledCopy = out.compactCopy(UnpooledByteBufAllocator.DEFAULT);
        ByteBuf view = out.view();
        assertThat(ByteBufToArray.of(view)).isEqualTo(data);
        out.close();
        out.close(); // idempotent
        assertThat(alloc.livePages()).isZero();
        // the poison took effect: the released pages no longer hold the data
        GuardedPageAllocator.Region first = alloc.regions.get(0);
        byte[] page0 = new byte[16];
        first.memory.get(first.pre, page0);
        assertThat(page0).isNotEqualTo(java.util.Arrays.copyOf(data, 16));
        assertThat(copy).isEqualTo(data);
        assertThat(ByteBufToArray.of(compact)).isEqualTo(data);
        assertThat(ByteBufToArray.of(pooledCopy)).isEqualTo(data);
        assertThatThrownBy(() -> view.getByte(0)).isInstanceOf(IllegalReferenceCountException.class);
        alloc.checkGuards();
    }

    @Test
    void detachHandsOverThePagesAndReleaseReturnsThem() throws IOException {
        GuardedPageAllocator alloc = new GuardedPageAllocator(8, true);
        PagedByteBufOutput out = new PagedByteBufOutput(alloc, 16);
        byte[] data = bytes(8, 40);
        out.write(data);
        out.writeAllFrom(Channels.newChannel(new ByteArrayInputStream(new byte[8]))); // ends on a page end
        ByteBuf view = out.view();
        CompositeByteBuf detached = out.detach();
        assertThatThrownBy(() -> view.getByte(0)).isInstanceOf(IllegalReferenceCountException.class);
        assertThat(detached.readableBytes()).isEqualTo(48);
        assertThat(ByteBufToArray.of(detached.slice(0, 40))).isEqualTo(data);
        assertThat(alloc.livePages()).isEqualTo(3);
        out.close(); // no-op after detach: the caller owns the pages
        assertThat(alloc.livePages()).isEqualTo(3);
        assertThat(detached.release()).isTrue();
        assertThat(alloc.livePages()).isZero();
        assertThatThrownBy(() -> detached.getByte(0)).isInstanceOf(IllegalReferenceCountException.class);
        alloc.checkGuards();
    }

    @Test
    void emptyStreamDetachesToAnEmptyBuffer() {
        GuardedPageAllocator alloc = new GuardedPageAllocator(9, false);
        PagedByteBufOutput out = new PagedByteBufOutput(alloc, 16);
        out.writeBytes(new byte[0]);
        assertThat(out.toByteArray()).isEmpty();
        CompositeByteBuf detached = out.detach();
        assertThat(detached.readableBytes()).isZero();
        detached.release();
        assertThat(alloc.regions).isEmpty();
    }

    @Test
    void everyUseAfterCloseOrDetachThrowsAClearException() {
        for (boolean detach : new boolean[] {false, true}) {
            GuardedPageAllocator alloc = new GuardedPageAllocator(10, false);
            PagedByteBufOutput out = new PagedByteBufOutput(alloc, 16);
            out.writeInt(1);
            if (detach) {
                out.detach().release();
            } else {
                out.close();
            }
            String message = detach ? "detached" : "closed";
            List<ThrowingCallable> uses = List.of(() -> out.writeByte(1), () -> out.writeInt(1), () -> out.writeLong(1),
                    () -> out.writeShort(1), () -> out.writeVInt(1), () -> out.writeVLong(1),
                    () -> out.writeBytes(new byte[0]), () -> out.writeBytes(new byte[3]),
                    () -> out.writeBytes(ByteBuffer.allocate(0)), () -> out.writeBytes(Unpooled.EMPTY_BUFFER),
                    () -> out.writeString(""), () -> out.writeString("é"), () -> out.writeUtf8("x"),
                    () -> out.writeAscii("x"), () -> out.writeBytes("x"), () -> out.writeChars("x"), () -> out.seek(0),
                    () -> out.skip(0), () -> out.reserve(4), () -> out.setByte(0, 1), out::position, out::size,
                    out::view, out::detach, out::toByteArray, out::compactCopy,
                    () -> out.writeAllFrom(new ByteArrayInputStream(new byte[1])));
            for (int i = 0; i < uses.size(); i++) {
                assertThatThrownBy(uses.get(i)).as("use %d after %s", i, message)
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining(message);
            }
            out.close();
            assertThat(alloc.livePages()).isZero();
        }
    }

    @Test
    void rejectsPagesThatAreNotContiguous() {
        List<ByteBuf> handedOut = new java.util.ArrayList<>();
        AbstractByteBufAllocator composites = new AbstractByteBufAllocator(false) {
            @Override
            protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                CompositeByteBuf c = Unpooled.compositeBuffer();
                c.addComponent(true, Unpooled.buffer(8).writeZero(8)).addComponent(true, Unpooled.directBuffer(8).writeZero(8));
                handedOut.add(c);
                return c;
            }

            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                return newHeapBuffer(initialCapacity, maxCapacity);
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        };
        try (PagedByteBufOutput out = new PagedByteBufOutput(composites, 16)) {
            assertThatThrownBy(() -> out.writeByte(1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("contiguous");
        }
        assertThat(handedOut).hasSize(1);
        assertThat(handedOut.get(0).refCnt()).as("the rejected page is released").isZero();
    }

    @Test
    void defaultAllocatorAndPageSize() {
        try (PagedByteBufOutput out = new PagedByteBufOutput()) {
            assertThat(out.pageSize()).isEqualTo(16 * 1024);
            out.writeString("default");
            assertThat(out.toByteArray()).isEqualTo(Encodings.string("default"));
        }
        assertThat(MagazineByteBufAllocator.DEFAULT).isNotNull();
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> new PagedByteBufOutput(UnpooledByteBufAllocator.DEFAULT, 0))
                .isInstanceOf(IllegalArgumentException.class);
        try (PagedByteBufOutput out = new PagedByteBufOutput(new GuardedPageAllocator(11, false), 8)) {
            assertThatThrownBy(() -> out.writeBytes(new byte[4], 2, 3)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> out.writeBytes(new byte[4], -1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
            out.writeLong(1);
            assertThatThrownBy(() -> out.writeBytes(new byte[4], 0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> out.skip(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThat(out.size()).isEqualTo(8);
        }
    }

    /** Sanity check that DataOutputStream is what the differential test thinks it is. */
    @Test
    void jdkReferenceIsBigEndian() throws IOException {
        assertThat(jdk((DataOutputStream d) -> d.writeInt(0x01020304))).containsExactly(1, 2, 3, 4);
    }
}
