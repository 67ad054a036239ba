package dev.tern.xds;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ConnectivityState;
import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.TlsChannelCredentials;
import dev.tern.tls.PemFiles;
import dev.tern.tls.ReloadingX509KeyManager;
import dev.tern.tls.ReloadingX509TrustManager;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The {@code tls} channel credentials of a bootstrap's {@code xds_servers} entry (gRFC A65): TLS to
 * the control plane, with a client certificate when the config names one (mTLS), checked against
 * the config's roots or else the platform's. The config is that of A29's {@code file_watcher}
 * provider ({@link FileWatcherConfig}), and the files are followed the same way: tern-core's {@link
 * ReloadingX509KeyManager} and {@link ReloadingX509TrustManager} read them again every {@code
 * refresh_interval}, so the next connection to the control plane uses what is on disk.
 *
 * <p>Stateless; safe from any thread. The channel it makes stops following the files when it is
 * shut down.
 */
final class ControlPlaneTls {
  private static final Logger logger = Logger.getLogger(ControlPlaneTls.class.getName());

  /** The {@code channel_creds} type. */
  static final String TYPE = "tls";

  private ControlPlaneTls() {}

  /**
   * Reads the entry's {@code config} and checks now that its files are readable and usable: the
   * certificates parse, the key parses and belongs to the certificate.
   *
   * @throws IllegalArgumentException starting with the name of the field that is wrong
   */
  static FileWatcherConfig check(Map<String, Object> config) {
    FileWatcherConfig parsed = FileWatcherConfig.parseChannelCreds(config);
    if (parsed.certificateFile() != null) {
      List<X509Certificate> chain =
          PemFiles.certificates(
              read("certificate_file", parsed.certificateFile()),
              "certificate_file " + parsed.certificateFile());
      PrivateKey key =
          PemFiles.privateKey(
              read("private_key_file", parsed.privateKeyFile()),
              null,
              "private_key_file " + parsed.privateKeyFile());
      PemFiles.checkKeyMatches(key, chain.get(0), "private_key_file and certificate_file");
    }
    if (parsed.caCertificateFile() != null) {
      PemFiles.certificates(
          read("ca_certificate_file", parsed.caCertificateFile()),
          "ca_certificate_file " + parsed.caCertificateFile());
    }
    return parsed;
  }

  private static byte[] read(String field, String file) {
    try {
      return Files.readAllBytes(Path.of(file));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          field + " " + file + ": cannot be read (" + e.getClass().getSimpleName() + ")", e);
    }
  }

  /**
   * A channel to {@code server}'s {@code server_uri} with its {@code tls} credentials. Files that
   * cannot be used any more (the bootstrap's check passed, but they changed since) are logged, and
   * the channel then trusts no server, so every attempt fails rather than the client waiting.
   */
  static ManagedChannel channel(Bootstrap.ServerInfo server) {
    FileWatcherConfig config = FileWatcherConfig.parseChannelCreds(server.channelCredsConfig());
    List<Closeable> watchers = new ArrayList<>();
    TlsChannelCredentials.Builder creds = TlsChannelCredentials.newBuilder();
    try {
      if (config.certificateFile() != null) {
        ReloadingX509KeyManager keys =
            ReloadingX509KeyManager.watch(
                new File(config.certificateFile()),
                new File(config.privateKeyFile()),
                null,
                config.refreshInterval());
        watchers.add(keys);
        creds.keyManager(keys);
      }
      if (config.caCertificateFile() != null) {
        ReloadingX509TrustManager roots =
            ReloadingX509TrustManager.watch(
                new File(config.caCertificateFile()), config.refreshInterval());
        watchers.add(roots);
        creds.trustManager(roots);
      }
    } catch (IOException | IllegalArgumentException e) {
      logger.log(
          Level.SEVERE,
          "the tls channel_creds of control plane {0} cannot be used, so no connection to it can"
              + " succeed: {1}",
          new Object[] {server.serverUri(), e.getMessage()});
      closeAll(watchers);
      watchers.clear();
      creds = TlsChannelCredentials.newBuilder().trustManager(trustNoOne());
    }
    ManagedChannel channel = Grpc.newChannelBuilder(server.serverUri(), creds.build()).build();
    return watchers.isEmpty() ? channel : new FollowingChannel(channel, watchers);
  }

  private static void closeAll(List<Closeable> watchers) {
    for (Closeable watcher : watchers) {
      try {
        watcher.close();
      } catch (IOException e) {
        logger.log(Level.FINE, "closing a certificate file watcher", e);
      }
    }
  }

  /** A trust manager with no roots: every server is refused. */
  private static TrustManager trustNoOne() {
    try {
      KeyStore empty = KeyStore.getInstance(KeyStore.getDefaultType());
      empty.load(null, null);
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(empty);
      return factory.getTrustManagers()[0];
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot make an empty trust manager: " + e, e);
    }
  }

  /**
   * The channel, which also stops the file watchers when it is shut down. Thread-safe as the
   * channel it wraps; closing a watcher twice does nothing.
   */
  private static final class FollowingChannel extends ManagedChannel {
    private final ManagedChannel delegate;
    private final List<Closeable> watchers;

    FollowingChannel(ManagedChannel delegate, List<Closeable> watchers) {
      this.delegate = delegate;
      this.watchers = List.copyOf(watchers);
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions options) {
      return delegate.newCall(method, options);
    }

    @Override
    public String authority() {
      return delegate.authority();
    }

    @Override
    public ManagedChannel shutdown() {
      delegate.shutdown();
      closeAll(watchers);
      return this;
    }

    @Override
    public boolean isShutdown() {
      return delegate.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return delegate.isTerminated();
    }

    @Override
    public ManagedChannel shutdownNow() {
      delegate.shutdownNow();
      closeAll(watchers);
      return this;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return delegate.awaitTermination(timeout, unit);
    }

    @Override
    public ConnectivityState getState(boolean requestConnection) {
      return delegate.getState(requestConnection);
    }

    @Override
    public void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
      delegate.notifyWhenStateChanged(source, callback);
    }

    @Override
    public void enterIdle() {
      delegate.enterIdle();
    }

    @Override
    public void resetConnectBackoff() {
      delegate.resetConnectBackoff();
    }
  }
}
