package dev.tern;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * TLS for a server: TLS 1.3 or 1.2 only, the server's certificate and key from PEM or a {@link
 * KeyManager}, and optionally client certificates ({@link ClientAuth}) checked against PEM roots or
 * a {@link TrustManager} (the JDK's default CAs if neither is given).
 *
 * <pre>{@code
 * ServerCredentials creds = TlsServerCredentials.newBuilder()
 *     .keyManager(new File("server.pem"), new File("server.key"))
 *     .trustManager(new File("client-ca.pem"))
 *     .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
 *     .build();
 * Server server = Grpc.newServerBuilderForPort(8443, creds).addService(service).build().start();
 * }</pre>
 *
 * <p>PEM inputs are read and checked when given, as for {@link TlsChannelCredentials}. To change
 * certificates without a restart, give a {@link dev.tern.tls.ReloadingX509KeyManager}. Immutable;
 * thread-safe.
 */
public final class TlsServerCredentials extends ServerCredentials {
  /** Whether the server asks clients for a certificate. */
  public enum ClientAuth {
    /** No client certificate is asked for (the default). */
    NONE,
    /** Asked for; a client without one is served, one with an untrusted one refused. */
    OPTIONAL,
    /** Required: a client without a trusted certificate fails the handshake. */
    REQUIRE,
  }

  /** What credentials may ask of a transport beyond TLS with a PEM key and no client auth. */
  public enum Feature {
    /** Client certificates are asked for ({@link ClientAuth#OPTIONAL} or {@code REQUIRE}). */
    MTLS,
    /** Key or trust material given as {@link KeyManager} or {@link TrustManager} objects. */
    CUSTOM_MANAGERS,
  }

  private final byte[] certificateChain;
  private final byte[] privateKey;
  private final String privateKeyPassword;
  private final List<KeyManager> keyManagers;
  private final byte[] rootCertificates;
  private final List<TrustManager> trustManagers;
  private final ClientAuth clientAuth;

  private TlsServerCredentials(Builder builder) {
    this.certificateChain = builder.material.certificateChain;
    this.privateKey = builder.material.privateKey;
    this.privateKeyPassword = builder.material.privateKeyPassword;
    this.keyManagers = builder.material.keyManagers;
    this.rootCertificates = builder.material.rootCertificates;
    this.trustManagers = builder.material.trustManagers;
    this.clientAuth = builder.clientAuth;
  }

  /**
   * TLS with the PEM certificate chain and unencrypted private key in these files.
   *
   * @throws IOException if a file cannot be read (the message names it)
   * @throws IllegalArgumentException if a file's content is not what it should be
   */
  public static TlsServerCredentials create(File certChain, File privateKey) throws IOException {
    return newBuilder().keyManager(certChain, privateKey).build();
  }

  /** As {@link #create(File, File)} from streams, read now and not closed. */
  public static TlsServerCredentials create(InputStream certChain, InputStream privateKey)
      throws IOException {
    return newBuilder().keyManager(certChain, privateKey).build();
  }

  /** A builder; a {@code keyManager} is required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** The server's PEM certificate chain, or null if key managers were given. */
  public byte[] getCertificateChain() {
    return certificateChain == null ? null : certificateChain.clone();
  }

  /** The server's PEM private key, or null if key managers were given. */
  public byte[] getPrivateKey() {
    return privateKey == null ? null : privateKey.clone();
  }

  /** The password of an encrypted {@link #getPrivateKey()}, or null. */
  public String getPrivateKeyPassword() {
    return privateKeyPassword;
  }

  /** The key managers given instead of PEM, or null. */
  public List<KeyManager> getKeyManagers() {
    return keyManagers;
  }

  /** The PEM roots client certificates are checked against, or null. */
  public byte[] getRootCertificates() {
    return rootCertificates == null ? null : rootCertificates.clone();
  }

  /** The trust managers given instead of PEM roots, or null. */
  public List<TrustManager> getTrustManagers() {
    return trustManagers;
  }

  /** Whether client certificates are asked for. */
  public ClientAuth getClientAuth() {
    return clientAuth;
  }

  /** The features these credentials use. */
  public Set<Feature> features() {
    Set<Feature> features = EnumSet.noneOf(Feature.class);
    if (clientAuth != ClientAuth.NONE) {
      features.add(Feature.MTLS);
    }
    if (keyManagers != null || trustManagers != null) {
      features.add(Feature.CUSTOM_MANAGERS);
    }
    return Collections.unmodifiableSet(features);
  }

  /** The features these credentials use that are not in {@code understood}; empty if none. */
  public Set<Feature> unsupportedFeatures(Set<Feature> understood) {
    Set<Feature> missing = EnumSet.noneOf(Feature.class);
    missing.addAll(features());
    missing.removeAll(understood);
    return Collections.unmodifiableSet(missing);
  }

  @Override
  public String toString() {
    return "TlsServerCredentials[key: "
        + (keyManagers != null ? "key managers" : "PEM")
        + ", clientAuth: "
        + clientAuth
        + ", trust: "
        + (trustManagers != null
            ? "trust managers"
            : rootCertificates != null ? "PEM roots" : "JDK default CAs")
        + "]";
  }

  /**
   * Builds {@link TlsServerCredentials}. Each {@code keyManager} call replaces the key material of
   * an earlier one, each {@code trustManager} call the trust material. Not thread-safe.
   */
  public static final class Builder {
    private final TlsMaterial material = new TlsMaterial();
    private ClientAuth clientAuth = ClientAuth.NONE;

    private Builder() {}

    /** See {@link TlsServerCredentials#create(File, File)}. */
    public Builder keyManager(File certChain, File privateKey) throws IOException {
      return keyManager(certChain, privateKey, null);
    }

    /** As {@link #keyManager(File, File)}, {@code password} decrypting an encrypted key. */
    public Builder keyManager(File certChain, File privateKey, String password) throws IOException {
      material.keyFiles(certChain, privateKey, password);
      return this;
    }

    /** As {@link #keyManager(File, File)} from streams, read now and not closed. */
    public Builder keyManager(InputStream certChain, InputStream privateKey) throws IOException {
      return keyManager(certChain, privateKey, null);
    }

    /** As {@link #keyManager(File, File, String)} from streams, read now and not closed. */
    public Builder keyManager(InputStream certChain, InputStream privateKey, String password)
        throws IOException {
      material.keyStreams(certChain, privateKey, password);
      return this;
    }

    /**
     * Takes the server's key and certificate from {@code keyManagers}, asked at every handshake;
     * the first {@link X509KeyManager} is used.
     *
     * @throws IllegalArgumentException if none is an {@code X509KeyManager}
     */
    public Builder keyManager(KeyManager... keyManagers) {
      material.keyManagers(keyManagers);
      return this;
    }

    /**
     * Checks client certificates against the certificates in {@code rootCerts} (PEM).
     *
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if it holds no valid certificate
     */
    public Builder trustManager(File rootCerts) throws IOException {
      material.rootsFile(rootCerts);
      return this;
    }

    /** As {@link #trustManager(File)} from a stream, read now and not closed. */
    public Builder trustManager(InputStream rootCerts) throws IOException {
      material.rootsStream(rootCerts);
      return this;
    }

    /**
     * Checks client certificates with {@code trustManagers}; the first {@link X509TrustManager} is
     * used.
     *
     * @throws IllegalArgumentException if none is an {@code X509TrustManager}
     */
    public Builder trustManager(TrustManager... trustManagers) {
      material.trustManagers(trustManagers);
      return this;
    }

    /** Whether to ask clients for certificates. Default: {@link ClientAuth#NONE}. */
    public Builder clientAuth(ClientAuth clientAuth) {
      this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
      return this;
    }

    /**
     * The credentials.
     *
     * @throws IllegalStateException if no {@code keyManager} was given
     */
    public TlsServerCredentials build() {
      if (material.privateKey == null && material.keyManagers == null) {
        throw new IllegalStateException(
            "TlsServerCredentials need the server's key: call keyManager(...)");
      }
      return new TlsServerCredentials(this);
    }
  }
}
