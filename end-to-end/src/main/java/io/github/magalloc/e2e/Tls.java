package io.github.magalloc.e2e;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.handler.ssl.util.SelfSignedCertificate;

import javax.net.ssl.SSLException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Locale;

/**
 * TLS or not, and through which engine: the JDK's own {@code SSLEngine} or OpenSSL (BoringSSL from
 * {@code netty-tcnative-boringssl-static}). The server's certificate is self-signed, made once per JVM.
 */
public enum Tls {
    NONE(null),
    JDK(SslProvider.JDK),
    OPENSSL(SslProvider.OPENSSL);

    private final SslProvider provider;

    Tls(SslProvider provider) {
        this.provider = provider;
    }

    public boolean enabled() {
        return this != NONE;
    }

    /** Null where this provider can run here, else why not (OpenSSL: its native library did not load). */
    public String unavailability() {
        if (this == OPENSSL && !OpenSsl.isAvailable()) {
            return "OpenSSL (netty-tcnative) unavailable: " + OpenSsl.unavailabilityCause();
        }
        return null;
    }

    /** The server's context, offering exactly {@code protocol} by ALPN. */
    public SslContext serverContext(Protocol protocol) throws SSLException {
        Certificate c = Certificate.SELF_SIGNED;
        return configure(SslContextBuilder.forServer(c.key(), c.cert()), protocol).build();
    }

    /**
     * The load generator's context, asking for exactly {@code protocol} by ALPN. It trusts any certificate: the
     * server's is self-signed, made in another JVM, and the traffic never leaves loopback (h2load does not check it
     * either).
     */
    public SslContext clientContext(Protocol protocol) throws SSLException {
        return configure(SslContextBuilder.forClient()
                .trustManager(InsecureTrustManagerFactory.INSTANCE)
                .endpointIdentificationAlgorithm(null), protocol).build();
    }

    private SslContextBuilder configure(SslContextBuilder b, Protocol protocol) {
        if (!enabled()) {
            throw new IllegalStateException("no TLS");
        }
        String why = unavailability();
        if (why != null) {
            throw new IllegalStateException(why);
        }
        b.sslProvider(provider).applicationProtocolConfig(new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN,
                // The only combination both providers support: no match means no protocol selected, and the
                // pipeline then refuses the connection (ServerAlpn, LoadConnection).
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                protocol.alpnId()));
        if (protocol == Protocol.HTTP2) {
            // RFC 7540 9.2.2: HTTP/2 over TLS forbids the weaker suites a provider may otherwise offer.
            b.ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE);
        }
        return b;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Tls parse(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }

    /** The self-signed key and certificate, made once per JVM (Netty runs the JDK's keytool: no BouncyCastle). */
    private record Certificate(PrivateKey key, X509Certificate cert) {
        static final Certificate SELF_SIGNED = make();

        // Deprecated in Netty 4.2 for netty-pkitesting's CertificateBuilder, a dependency this module does not take;
        // it works on JDK 17 and 25.
        @SuppressWarnings("deprecation")
        private static Certificate make() {
            try {
                SelfSignedCertificate ssc = new SelfSignedCertificate("localhost");
                try {
                    return new Certificate(ssc.key(), ssc.cert());
                } finally {
                    ssc.delete(); // its temporary PEM files; key and certificate stay in memory
                }
            } catch (CertificateException e) {
                throw new IllegalStateException("cannot make a self-signed certificate", e);
            }
        }
    }
}
