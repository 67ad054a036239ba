package dev.tern;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * TLS for a channel: TLS 1.3 or 1.2, the server checked against trusted roots (the JDK's default
 * CAs unless {@link Builder#trustManager} says otherwise) and the target's host name, and for
 * mutual TLS a client certificate from {@link Builder#keyManager}.
 *
 * <pre>{@code
 * ChannelCredentials creds = TlsChannelCredentials.newBuilder()
 *     .trustManager(new File("ca.pem"))
 *     .keyManager(new File("client.pem"), new File("client.key"))   // mutual TLS only
 *     .build();
 * ManagedChannel channel = Grpc.newChannelBuilder("example.com:443", creds).build();
 * }</pre>
 *
 * <p>PEM inputs are read and checked when given to the builder: a file that is not PEM, holds no
 * certificate, a key the JDK cannot read, a key that does not belong to the certificate, or an
 * encrypted key with a wrong password fails there with an {@link IllegalArgumentException} naming
 * the file. Keys may be PKCS#8 (plain or encrypted), PKCS#1 RSA or SEC1 EC.
 *
 * <p>A transport that cannot honour some of what the credentials ask for (see {@link Feature})
 * refuses them, and {@link Grpc#newChannelBuilder} reports which feature was not understood.
 * Immutable; thread-safe.
 */
public final class TlsChannelCredentials extends ChannelCredentials {
  /**
   * What credentials may ask of a transport beyond server-authenticated TLS with PEM roots. A
   * transport lists those it supports; credentials using others are refused by it.
   */
  public enum Feature {
    /** The client presents a certificate (mutual TLS). */
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

  private TlsChannelCredentials(Builder builder) {
    this.certificateChain = builder.material.certificateChain;
    this.privateKey = builder.material.privateKey;
    this.privateKeyPassword = builder.material.privateKeyPassword;
    this.keyManagers = builder.material.keyManagers;
    this.rootCertificates = builder.material.rootCertificates;
    this.trustManagers = builder.material.trustManagers;
  }

  /** TLS trusting the JDK's default CAs, without a client certificate. */
  public static TlsChannelCredentials create() {
    return newBuilder().build();
  }

  /** A builder; nothing set means {@link #create()}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** The client's PEM certificate chain, or null. */
  public byte[] getCertificateChain() {
    return certificateChain == null ? null : certificateChain.clone();
  }

  /** The client's PEM private key, or null. */
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

  /** The PEM roots trusted instead of the JDK's CAs, or null. */
  public byte[] getRootCertificates() {
    return rootCertificates == null ? null : rootCertificates.clone();
  }

  /** The trust managers given instead of PEM roots, or null. */
  public List<TrustManager> getTrustManagers() {
    return trustManagers;
  }

  /** The features these credentials use. */
  public Set<Feature> features() {
    Set<Feature> features = EnumSet.noneOf(Feature.class);
    if (certificateChain != null || keyManagers != null) {
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
    return "TlsChannelCredentials[key: "
        + (keyManagers != null ? "key managers" : privateKey != null ? "PEM" : "none")
        + ", trust: "
        + (trustManagers != null
            ? "trust managers"
            : rootCertificates != null ? "PEM roots" : "JDK default CAs")
        + "]";
  }

  /**
   * Builds {@link TlsChannelCredentials}. Each {@code keyManager} call replaces the key material of
   * an earlier one, each {@code trustManager} call the trust material. Not thread-safe.
   */
  public static final class Builder {
    private final TlsMaterial material = new TlsMaterial();

    private Builder() {}

    /**
     * Presents {@code certChain} (PEM, leaf first) with {@code privateKey} (PEM, unencrypted).
     *
     * @throws IOException if a file cannot be read (the message names it)
     * @throws IllegalArgumentException if a file's content is not what it should be
     */
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
     * Takes the client's key and certificate from {@code keyManagers}; the first {@link
     * X509KeyManager} is used. Pass a {@link dev.tern.tls.ReloadingX509KeyManager} to follow files
     * that change.
     *
     * @throws IllegalArgumentException if none is an {@code X509KeyManager}
     */
    public Builder keyManager(KeyManager... keyManagers) {
      material.keyManagers(keyManagers);
      return this;
    }

    /**
     * Trusts the certificates in {@code rootCerts} (PEM) instead of the JDK's default CAs.
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
     * Decides whether to trust servers with {@code trustManagers}; the first {@link
     * X509TrustManager} is used. It replaces host name checking too unless it is an {@code
     * X509ExtendedTrustManager}, for which the transport asks for HTTPS endpoint identification.
     *
     * @throws IllegalArgumentException if none is an {@code X509TrustManager}
     */
    public Builder trustManager(TrustManager... trustManagers) {
      material.trustManagers(trustManagers);
      return this;
    }

    /** The credentials. */
    public TlsChannelCredentials build() {
      return new TlsChannelCredentials(this);
    }
  }
}
