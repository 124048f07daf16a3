package io.github.magalloc.e2e;

import io.netty.handler.ssl.ApplicationProtocolNames;

import java.util.Locale;

/** The HTTP version spoken end to end; over TLS it is the one protocol both sides offer by ALPN. */
public enum Protocol {
    HTTP1(ApplicationProtocolNames.HTTP_1_1),
    /** HTTP/2: "h2" by ALPN over TLS, h2c with prior knowledge (no upgrade) in plain text. */
    HTTP2(ApplicationProtocolNames.HTTP_2);

    private final String alpnId;

    Protocol(String alpnId) {
        this.alpnId = alpnId;
    }

    /** The ALPN protocol identifier: "http/1.1" or "h2". */
    public String alpnId() {
        return alpnId;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Protocol parse(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }
}
