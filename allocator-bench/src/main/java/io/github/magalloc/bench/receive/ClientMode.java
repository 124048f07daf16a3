package io.github.magalloc.bench.receive;

import java.util.Locale;

/** How the clients send each request's segments. */
public enum ClientMode {
    /**
     * A slow network: each client writes and flushes one 1,460-byte segment per millisecond, so that each of the
     * server's reads brings one segment, or a few.
     */
    PACED("paced", 64),
    /** No pacing: all segments of a request are written, then flushed at once. */
    BACK_TO_BACK("back-to-back", 16);

    private final String label;
    private final int defaultClients;

    ClientMode(String label, int defaultClients) {
        this.label = label;
        this.defaultClients = defaultClients;
    }

    public String label() {
        return label;
    }

    /** The connections a run of this mode has unless told otherwise. */
    public int defaultClients() {
        return defaultClients;
    }

    /** The mode of that label (or enum name), in any letter case. */
    public static ClientMode parse(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (ClientMode mode : values()) {
            if (mode.label.equals(wanted)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown client mode: " + name + " (expected paced or back-to-back)");
    }
}
