/**
 * PEM certificates and private keys read with the JDK alone ({@link dev.tern.tls.PemFiles}): what
 * the TLS credentials ({@code TlsServerCredentials}, {@code TlsChannelCredentials}) and the
 * reloading key and trust managers use, and what an application building its own key or trust
 * managers can use too. Depends on nothing else of Tern's.
 */
package dev.tern.tls;
