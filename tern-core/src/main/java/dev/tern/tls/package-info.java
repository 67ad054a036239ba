/**
 * TLS with the JDK alone: PEM certificates and private keys ({@link dev.tern.tls.PemFiles}), what
 * the TLS credentials ({@code TlsServerCredentials}, {@code TlsChannelCredentials}) use and what an
 * application building its own key or trust managers can use too; and key and trust managers that
 * follow PEM files as they change ({@link dev.tern.tls.ReloadingX509KeyManager}, {@link
 * dev.tern.tls.ReloadingX509TrustManager}), for certificates rotated without a restart. Depends on
 * nothing else of Tern's.
 */
package dev.tern.tls;
