package io.github.magalloc.bench.receive;

import io.github.magalloc.receive.ReadBufferCutting;
import io.github.magalloc.receive.RightSizingRecvByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;

import java.util.Locale;

/**
 * The receive allocator of the server's accepted channels ({@code ChannelOption.RECVBUF_ALLOCATOR}), by the name
 * command lines and tables use. {@link #create()} makes a fresh instance, so that a {@code ReceiveMetricProvider}'s
 * counts are the run's own.
 */
public enum ReceiveSetting {
    /** A fixed 512 KiB read buffer: Elasticsearch 5's receive size. */
    FIXED_512K("fixed-512k") {
        @Override
        public RecvByteBufAllocator create() {
            return new FixedRecvByteBufAllocator(512 * 1024);
        }
    },
    FIXED_64K("fixed-64k") {
        @Override
        public RecvByteBufAllocator create() {
            return new FixedRecvByteBufAllocator(64 * 1024);
        }
    },
    /**
     * A fixed 64 KiB read buffer, and a handler before the HTTP codec that cuts every inbound buffer of 1 KiB or more
     * to its bytes ({@link ElasticsearchTrim}, what Elasticsearch's {@code NettyByteBufSizer} does).
     */
    FIXED_64K_ES_TRIM("fixed-64k-es-trim") {
        @Override
        public RecvByteBufAllocator create() {
            return new FixedRecvByteBufAllocator(64 * 1024);
        }

        @Override
        public boolean elasticsearchTrim() {
            return true;
        }
    },
    /** Netty's default receive allocator. */
    NETTY_ADAPTIVE("netty-adaptive") {
        @Override
        public RecvByteBufAllocator create() {
            return new AdaptiveRecvByteBufAllocator();
        }
    },
    /** magalloc's right-sizing receive allocator with its recommended defaults. */
    MAGALLOC("magalloc") {
        @Override
        public RecvByteBufAllocator create() {
            return new RightSizingRecvByteBufAllocator();
        }
    },
    /** magalloc's right-sizing receive allocator starting at, and bounded by, 512 KiB: Elasticsearch 5's size. */
    MAGALLOC_512K("magalloc-512k") {
        @Override
        public RecvByteBufAllocator create() {
            return RightSizingRecvByteBufAllocator.builder().initial(512 * 1024).maximum(512 * 1024).build();
        }
    },
    /** A fixed 512 KiB read buffer with magalloc's cut of each read buffer to its bytes. */
    CUT_FIXED_512K("cut-fixed-512k") {
        @Override
        public RecvByteBufAllocator create() {
            return ReadBufferCutting.wrap(new FixedRecvByteBufAllocator(512 * 1024));
        }
    };

    private final String label;

    ReceiveSetting(String label) {
        this.label = label;
    }

    /** A new receive allocator of this setting. */
    public abstract RecvByteBufAllocator create();

    /** Whether the Elasticsearch-style trim handler goes first in the pipeline. */
    public boolean elasticsearchTrim() {
        return false;
    }

    /** The name on command lines and in tables: {@code fixed-512k}, {@code magalloc}, ... */
    public String label() {
        return label;
    }

    /** The setting of that label (or enum name), in any letter case. */
    public static ReceiveSetting parse(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (ReceiveSetting setting : values()) {
            if (setting.label.equals(wanted)) {
                return setting;
            }
        }
        throw new IllegalArgumentException("unknown receive setting: " + name + " (expected one of " + labels() + ")");
    }

    /** Every label, separated by "|". */
    public static String labels() {
        StringBuilder sb = new StringBuilder();
        for (ReceiveSetting setting : values()) {
            sb.append(sb.length() == 0 ? "" : "|").append(setting.label);
        }
        return sb.toString();
    }
}
