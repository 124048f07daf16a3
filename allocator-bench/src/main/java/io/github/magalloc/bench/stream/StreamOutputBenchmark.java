package io.github.magalloc.bench.stream;

import io.github.magalloc.MagazineByteBufAllocator;
import io.github.magalloc.stream.PagedByteBufOutput;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Elasticsearch's six stream cases, for PagedByteBufOutput (direct and heap pages) against Netty's
 * ByteBufOutputStream over an adaptive and a pooled direct ByteBuf, and against DataOutputStream over a
 * ByteArrayOutputStream. Every target is reused across operations (seek(0)/clear()/reset()), so steady state
 * measures writing, not allocation; the Netty buffers and the byte array have grown to their final size after the
 * first operation and never cross a page. Strings are UTF-8 with a vint byte length in every target.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class StreamOutputBenchmark {
    @Param({"PAGED_DIRECT", "PAGED_HEAP", "NETTY_ADAPTIVE", "NETTY_POOLED", "DATA_OUTPUT_STREAM"})
    public String target;

    private final StreamWorkload w = new StreamWorkload();
    private PagedByteBufOutput paged;
    private ByteBuf nettyBuf;
    private ByteBufOutputStream netty;
    private SeekableBytes bytes;
    private DataOutputStream dos;

    /** A ByteArrayOutputStream that can move its write position, for the page-crossing case. */
    static final class SeekableBytes extends ByteArrayOutputStream {
        SeekableBytes() {
            super(256);
        }

        void position(int p) {
            if (p > buf.length) {
                buf = java.util.Arrays.copyOf(buf, p);
            }
            count = p;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        switch (target) {
            case "PAGED_DIRECT" -> paged = new PagedByteBufOutput(new MagazineByteBufAllocator(true));
            case "PAGED_HEAP" -> paged = new PagedByteBufOutput(new MagazineByteBufAllocator(false));
            case "NETTY_ADAPTIVE" -> nettyBuf = new AdaptiveByteBufAllocator().directBuffer(256);
            case "NETTY_POOLED" -> nettyBuf = new PooledByteBufAllocator(true).directBuffer(256);
            case "DATA_OUTPUT_STREAM" -> {
                bytes = new SeekableBytes();
                dos = new DataOutputStream(bytes);
            }
            default -> throw new IllegalArgumentException(target);
        }
        if (nettyBuf != null) {
            netty = new ByteBufOutputStream(nettyBuf);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (paged != null) {
            paged.close();
        }
        if (nettyBuf != null) {
            nettyBuf.release();
        }
    }

    /** Moves every target to {@code position}, as if that many bytes had been written. */
    private void start(int position) {
        if (paged != null) {
            paged.seek(position);
        } else if (netty != null) {
            nettyBuf.clear().ensureWritable(position).writerIndex(position);
        } else {
            bytes.position(position);
        }
    }

    private int size() {
        return paged != null ? paged.position() : netty != null ? nettyBuf.writerIndex() : bytes.size();
    }

    @Benchmark
    public int writeByte() throws IOException {
        start(0);
        byte[] b = w.singles;
        if (paged != null) {
            for (byte x : b) {
                paged.writeByte(x);
            }
        } else if (netty != null) {
            for (byte x : b) {
                netty.writeByte(x);
            }
        } else {
            for (byte x : b) {
                dos.writeByte(x);
            }
        }
        return size();
    }

    private int threeArrays(int from) throws IOException {
        start(from);
        for (byte[] a : w.arrays) {
            if (paged != null) {
                paged.writeBytes(a, 0, a.length);
            } else if (netty != null) {
                netty.write(a, 0, a.length);
            } else {
                dos.write(a, 0, a.length);
            }
        }
        return size();
    }

    @Benchmark
    public int writeBytesInPage() throws IOException {
        return threeArrays(0);
    }

    @Benchmark
    public int writeBytesAcrossPages() throws IOException {
        return threeArrays(StreamWorkload.ACROSS_START);
    }

    @Benchmark
    public int writeBytesMultiPage() throws IOException {
        start(0);
        byte[] a = w.multiPage;
        if (paged != null) {
            paged.writeBytes(a, 0, a.length);
        } else if (netty != null) {
            netty.write(a, 0, a.length);
        } else {
            dos.write(a, 0, a.length);
        }
        return size();
    }

    @Benchmark
    public int writeString() throws IOException {
        start(0);
        for (String s : w.strings) {
            if (paged != null) {
                paged.writeString(s);
            } else if (netty != null) {
                writeVInt(netty, ByteBufUtil.utf8Bytes(s));
                nettyBuf.writeCharSequence(s, StandardCharsets.UTF_8);
            } else {
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                writeVInt(dos, utf8.length);
                dos.write(utf8);
            }
        }
        return size();
    }

    @Benchmark
    public int writeVInt() throws IOException {
        start(0);
        int[] v = w.vints;
        if (paged != null) {
            for (int x : v) {
                paged.writeVInt(x);
            }
        } else if (netty != null) {
            for (int x : v) {
                writeVInt(netty, x);
            }
        } else {
            for (int x : v) {
                writeVInt(dos, x);
            }
        }
        return size();
    }

    /** The obvious LEB128 over a DataOutput, as a user of those streams would write it. */
    private static void writeVInt(java.io.DataOutput out, int v) throws IOException {
        while ((v & ~0x7F) != 0) {
            out.writeByte(v & 0x7F | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
    }
}
