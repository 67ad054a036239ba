package dev.tern.grpcjava.internal.convert;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.EnumSet;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

/**
 * Converts grpc-java's channel and server credentials to Tern's: insecure, TLS (certificates and
 * keys as PEM bytes, or key and trust managers; mutual TLS; the server's client-auth mode), and the
 * first convertible choice of {@code ChoiceChannelCredentials}. Anything else (grpc-java's ALTS,
 * Google default credentials, TLS features Tern does not understand; composite credentials are
 * split by the channel provider, which converts their channel credentials here) is refused with an
 * {@link IllegalArgumentException} whose message says which credentials, for the provider to return
 * as its error. Stateless and thread-safe.
 */
public final class Credentials {
  private static final Set<io.grpc.TlsChannelCredentials.Feature> CHANNEL_TLS_UNDERSTOOD =
      EnumSet.of(
          io.grpc.TlsChannelCredentials.Feature.MTLS,
          io.grpc.TlsChannelCredentials.Feature.CUSTOM_MANAGERS);
  private static final Set<io.grpc.TlsServerCredentials.Feature> SERVER_TLS_UNDERSTOOD =
      EnumSet.of(
          io.grpc.TlsServerCredentials.Feature.MTLS,
          io.grpc.TlsServerCredentials.Feature.CUSTOM_MANAGERS);

  private Credentials() {}

  /**
   * Tern's equivalent of {@code credentials}.
   *
   * @throws IllegalArgumentException naming the credentials if Tern has no equivalent
   */
  public static dev.tern.ChannelCredentials toTern(io.grpc.ChannelCredentials credentials) {
    if (credentials instanceof io.grpc.InsecureChannelCredentials) {
      return dev.tern.InsecureChannelCredentials.create();
    }
    if (credentials instanceof io.grpc.TlsChannelCredentials tls) {
      return toTern(tls);
    }
    if (credentials instanceof io.grpc.ChoiceChannelCredentials choice) {
      StringBuilder refused = new StringBuilder();
      for (io.grpc.ChannelCredentials option : choice.getCredentialsList()) {
        try {
          return toTern(option);
        } catch (IllegalArgumentException e) {
          refused.append(refused.length() == 0 ? "" : "; ").append(e.getMessage());
        }
      }
      throw new IllegalArgumentException(
          "Tern supports none of the choices of ChoiceChannelCredentials: " + refused);
    }
    throw new IllegalArgumentException(
        "Tern does not support channel credentials "
            + credentials.getClass().getName()
            + " (supported: InsecureChannelCredentials, TlsChannelCredentials,"
            + " ChoiceChannelCredentials of those)");
  }

  private static dev.tern.ChannelCredentials toTern(io.grpc.TlsChannelCredentials tls) {
    Set<io.grpc.TlsChannelCredentials.Feature> unknown =
        tls.incomprehensible(CHANNEL_TLS_UNDERSTOOD);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "Tern does not support these TlsChannelCredentials features: " + unknown);
    }
    dev.tern.TlsChannelCredentials.Builder builder = dev.tern.TlsChannelCredentials.newBuilder();
    try {
      if (tls.getKeyManagers() != null) {
        builder.keyManager(tls.getKeyManagers().toArray(new KeyManager[0]));
      } else if (tls.getPrivateKey() != null) {
        builder.keyManager(
            new ByteArrayInputStream(tls.getCertificateChain()),
            new ByteArrayInputStream(tls.getPrivateKey()),
            tls.getPrivateKeyPassword());
      }
      if (tls.getTrustManagers() != null) {
        builder.trustManager(tls.getTrustManagers().toArray(new TrustManager[0]));
      } else if (tls.getRootCertificates() != null) {
        builder.trustManager(new ByteArrayInputStream(tls.getRootCertificates()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("TlsChannelCredentials: " + e.getMessage(), e);
    }
    return builder.build();
  }

  /**
   * Tern's equivalent of {@code credentials}.
   *
   * @throws IllegalArgumentException naming the credentials if Tern has no equivalent
   */
  public static dev.tern.ServerCredentials toTern(io.grpc.ServerCredentials credentials) {
    if (credentials instanceof io.grpc.InsecureServerCredentials) {
      return dev.tern.InsecureServerCredentials.create();
    }
    if (!(credentials instanceof io.grpc.TlsServerCredentials tls)) {
      throw new IllegalArgumentException(
          "Tern does not support server credentials "
              + credentials.getClass().getName()
              + " (supported: InsecureServerCredentials, TlsServerCredentials)");
    }
    Set<io.grpc.TlsServerCredentials.Feature> unknown = tls.incomprehensible(SERVER_TLS_UNDERSTOOD);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "Tern does not support these TlsServerCredentials features: " + unknown);
    }
    dev.tern.TlsServerCredentials.Builder builder = dev.tern.TlsServerCredentials.newBuilder();
    try {
      if (tls.getKeyManagers() != null) {
        builder.keyManager(tls.getKeyManagers().toArray(new KeyManager[0]));
      } else {
        builder.keyManager(
            new ByteArrayInputStream(tls.getCertificateChain()),
            new ByteArrayInputStream(tls.getPrivateKey()),
            tls.getPrivateKeyPassword());
      }
      if (tls.getTrustManagers() != null) {
        builder.trustManager(tls.getTrustManagers().toArray(new TrustManager[0]));
      } else if (tls.getRootCertificates() != null) {
        builder.trustManager(new ByteArrayInputStream(tls.getRootCertificates()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("TlsServerCredentials: " + e.getMessage(), e);
    }
    builder.clientAuth(
        dev.tern.TlsServerCredentials.ClientAuth.valueOf(tls.getClientAuth().name()));
    return builder.build();
  }
}
