/**
 * TLS with the JDK alone: PEM certificates and private keys, and key and trust managers that follow
 * PEM files as they change, for certificates rotated without a restart.
 *
 * <p>The rooms:
 *
 * <ul>
 *   <li>{@link dev.tern.tls.PemFiles}: reads certificate chains and PKCS#8 (plain or encrypted),
 *       PKCS#1 RSA and SEC1 EC keys; what the TLS credentials ({@code TlsServerCredentials}, {@code
 *       TlsChannelCredentials}) use, and what an application building its own key or trust managers
 *       can use too. {@code Der} is the little DER reading and writing the key formats need.
 *   <li>{@link dev.tern.tls.ReloadingX509KeyManager} and {@link
 *       dev.tern.tls.ReloadingX509TrustManager}: present the newest valid certificate, check
 *       against the newest valid roots; a half-written or mismatched file keeps the previous
 *       material.
 *   <li>{@code PemFileWatcher}: re-reads the files on a period and hands changed contents to a
 *       loader, logging each rejected content once.
 * </ul>
 *
 * <p>Threads: each reloading manager owns one daemon thread, its watcher's, which runs the checks
 * one at a time until {@code close()}; handshakes read the current material from any thread. The
 * managers and {@code PemFiles} are thread-safe.
 *
 * <p>A leaf: it depends on nothing else of Tern's, not even the API, which builds its TLS
 * credentials on it ({@code tools/java/package-rules.txt}).
 */
package dev.tern.tls;
