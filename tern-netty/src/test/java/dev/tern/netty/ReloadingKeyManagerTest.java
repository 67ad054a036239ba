package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.TlsChannelCredentials;
import dev.tern.TlsServerCredentials;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.tls.ReloadingX509KeyManager;
import dev.tern.tls.ReloadingX509TrustManager;
import java.io.File;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificates rotated without a restart: {@link ReloadingX509KeyManager} serves the new files to
 * new connections, leaves established connections and their calls alone, and keeps the previous key
 * when the new files are not usable (with one WARNING).
 */
class ReloadingKeyManagerTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  static TestCertificates first;
  static TestCertificates second;
  static TestCertificates third;

  @TempDir Path dir;
  File chain;
  File key;

  /** The leaf certificate of every server the client checks, in order. */
  private final BlockingQueue<X509Certificate> serverCertificates = new LinkedBlockingQueue<>();

  @BeforeAll
  static void generate() throws Exception {
    first = TestCertificates.generate("tern-first");
    second = TestCertificates.generate("tern-second");
    third = TestCertificates.generate("tern-third");
  }

  @BeforeEach
  void writeFirst() throws Exception {
    chain = dir.resolve("server.pem").toFile();
    key = dir.resolve("server.key").toFile();
    install(first);
  }

  private void install(TestCertificates certificates) throws Exception {
    PemWriter.write(dir, "server.key", PemWriter.pkcs8(certificates.key));
    PemWriter.write(dir, "server.pem", PemWriter.certificates(certificates.certificate));
  }

  private int start(ReloadingX509KeyManager keys) throws Exception {
    Server server =
        cleanup.register(
            Grpc.newServerBuilderForPort(
                    0, TlsServerCredentials.newBuilder().keyManager(keys).build())
                .addService(new EchoService())
                .build()
                .start());
    return server.getPort();
  }

  /** A channel trusting all three certificates and recording which one the server presents. */
  private ManagedChannel channel(int port) throws Exception {
    KeyStore roots = KeyStore.getInstance("PKCS12");
    roots.load(null, null);
    roots.setCertificateEntry("first", first.certificate);
    roots.setCertificateEntry("second", second.certificate);
    roots.setCertificateEntry("third", third.certificate);
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(roots);
    X509ExtendedTrustManager pkix = null;
    for (TrustManager manager : factory.getTrustManagers()) {
      if (manager instanceof X509ExtendedTrustManager x509) {
        pkix = x509;
      }
    }
    TlsChannelCredentials creds =
        TlsChannelCredentials.newBuilder().trustManager(new Recording(pkix)).build();
    return cleanup.register(Grpc.newChannelBuilderForAddress("localhost", port, creds).build());
  }

  private static String echo(ManagedChannel channel, String request) {
    return ClientCalls.blockingUnaryCall(
        channel,
        EchoService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
        request);
  }

  private String subjectOfNextHandshake() throws InterruptedException {
    X509Certificate leaf = serverCertificates.poll(10, TimeUnit.SECONDS);
    assertThat(leaf).as("a handshake").isNotNull();
    return leaf.getSubjectX500Principal().getName();
  }

  @Test
  void newConnectionsSeeRotatedCertificateAndOldOnesAreUnaffected() throws Exception {
    try (LogCapture log = new LogCapture(ReloadingX509KeyManager.class);
        ReloadingX509KeyManager keys =
            ReloadingX509KeyManager.watch(chain, key, null, Duration.ofHours(1))) {
      int port = start(keys);
      ManagedChannel before = channel(port);
      assertThat(echo(before, "one")).isEqualTo("one");
      assertThat(subjectOfNextHandshake()).isEqualTo("CN=tern-first");
      BidiCall streaming = new BidiCall(before);
      assertThat(streaming.echo("before")).isEqualTo("before");

      install(second);
      assertThat(keys.reload()).isTrue();
      assertThat(keys.currentCertificateChain()[0].getSerialNumber())
          .isEqualTo(second.certificate.getSerialNumber());
      assertThat(log.records())
          .singleElement()
          .satisfies(r -> assertThat(r.getLevel()).isEqualTo(Level.INFO));

      ManagedChannel after = channel(port);
      assertThat(echo(after, "two")).isEqualTo("two");
      assertThat(subjectOfNextHandshake()).isEqualTo("CN=tern-second");

      // The established connection and its call carry on, without a new handshake.
      assertThat(streaming.echo("after")).isEqualTo("after");
      assertThat(echo(before, "three")).isEqualTo("three");
      assertThat(streaming.finish().isOk()).isTrue();
      assertThat(serverCertificates).isEmpty();
      assertThat(keys.reload()).as("nothing changed").isFalse();
    }
  }

  @Test
  void unusableFilesKeepThePreviousKeyWithOneWarning() throws Exception {
    try (LogCapture log = new LogCapture(ReloadingX509KeyManager.class);
        ReloadingX509KeyManager keys =
            ReloadingX509KeyManager.watch(chain, key, null, Duration.ofHours(1))) {
      int port = start(keys);
      String full = PemWriter.certificates(second.certificate);
      PemWriter.write(dir, "server.key", PemWriter.pkcs8(second.key));
      PemWriter.write(dir, "server.pem", full.substring(0, full.length() / 2)); // half-written
      assertThat(keys.reload()).isFalse();
      assertThat(keys.reload()).isFalse();
      assertThat(log.records()).hasSize(1);
      LogRecord warning = log.records().get(0);
      assertThat(warning.getLevel()).isEqualTo(Level.WARNING);
      assertThat(warning.getThrown()).isNull();
      assertThat(format(warning))
          .contains("keeping the previous material")
          .contains("certificate chain file " + chain)
          .contains("no -----END CERTIFICATE----- line");

      ManagedChannel channel = channel(port);
      assertThat(echo(channel, "still")).isEqualTo("still");
      assertThat(subjectOfNextHandshake()).isEqualTo("CN=tern-first");

      // The key written, the certificate still the old one: they do not match, also kept.
      PemWriter.write(dir, "server.pem", PemWriter.certificates(first.certificate));
      assertThat(keys.reload()).isFalse();
      assertThat(log.records()).hasSize(2);
      assertThat(format(log.records().get(1)))
          .contains("does not match the certificate CN=tern-first");

      install(second);
      assertThat(keys.reload()).isTrue();
      assertThat(echo(channel(port), "fixed")).isEqualTo("fixed");
      assertThat(subjectOfNextHandshake()).isEqualTo("CN=tern-second");
    }
  }

  @Test
  void filesAreCheckedOnThePeriod() throws Exception {
    try (LogCapture log = new LogCapture(ReloadingX509KeyManager.class);
        ReloadingX509KeyManager keys =
            ReloadingX509KeyManager.watch(chain, key, null, Duration.ofMillis(20))) {
      int port = start(keys);
      install(third);
      log.awaitRecord(
          r -> r.getLevel() == Level.INFO && format(r).contains("CN=tern-third"),
          Duration.ofSeconds(10));
      assertThat(echo(channel(port), "periodic")).isEqualTo("periodic");
      assertThat(subjectOfNextHandshake()).isEqualTo("CN=tern-third");
    }
  }

  @Test
  void badArgumentsAndFirstLoadFailuresAreReported() throws Exception {
    assertThatThrownBy(() -> ReloadingX509KeyManager.watch(chain, key, null, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("period must be positive, got PT0S");
    PemWriter.write(dir, "server.key", "nothing");
    assertThatThrownBy(() -> ReloadingX509KeyManager.watch(chain, key, null, Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("private key file " + key + ": no PEM private key found");
    File missing = dir.resolve("missing.pem").toFile();
    assertThatThrownBy(() -> ReloadingX509TrustManager.watch(missing, Duration.ofMinutes(1)))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageStartingWith("cannot read " + missing);
  }

  @Test
  void reloadingTrustManagerFollowsItsRoots() throws Exception {
    try (LogCapture log = new LogCapture(ReloadingX509TrustManager.class);
        ReloadingX509KeyManager keys =
            ReloadingX509KeyManager.watch(chain, key, null, Duration.ofHours(1))) {
      int port = start(keys);
      Path roots = PemWriter.write(dir, "roots.pem", PemWriter.certificates(second.certificate));
      try (ReloadingX509TrustManager trust =
          ReloadingX509TrustManager.watch(roots.toFile(), Duration.ofHours(1))) {
        TlsChannelCredentials creds =
            TlsChannelCredentials.newBuilder().trustManager(trust).build();
        ManagedChannel distrustful =
            cleanup.register(Grpc.newChannelBuilderForAddress("localhost", port, creds).build());
        assertThatThrownBy(() -> echo(distrustful, "no")).hasMessageContaining("UNAVAILABLE");

        PemWriter.write(
            dir, "roots.pem", PemWriter.certificates(second.certificate, first.certificate));
        assertThat(trust.reload()).isTrue();
        ManagedChannel trusting =
            cleanup.register(Grpc.newChannelBuilderForAddress("localhost", port, creds).build());
        assertThat(echo(trusting, "yes")).isEqualTo("yes");
        assertThat(log.records()).allMatch(r -> r.getLevel() == Level.INFO);
      }
    }
  }

  private static String format(LogRecord record) {
    return MessageFormat.format(record.getMessage(), record.getParameters());
  }

  /** One bidirectional echo call, driven message by message. */
  private static final class BidiCall {
    private final ClientCall<String, String> call;
    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

    BidiCall(ManagedChannel channel) {
      call = channel.newCall(EchoService.BIDI_STREAMING, CallOptions.DEFAULT);
      call.start(
          new ClientCall.Listener<String>() {
            @Override
            public void onMessage(String message) {
              events.add(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              events.add(status);
            }
          },
          new Metadata());
      call.request(Integer.MAX_VALUE);
    }

    String echo(String message) throws InterruptedException {
      call.sendMessage(message);
      Object event = events.poll(10, TimeUnit.SECONDS);
      assertThat(event).isInstanceOf(String.class);
      return (String) event;
    }

    Status finish() throws InterruptedException {
      call.halfClose();
      Object event = events.poll(10, TimeUnit.SECONDS);
      assertThat(event).isInstanceOf(Status.class);
      return (Status) event;
    }
  }

  /** Delegates to the JDK's PKIX checks and records the server's leaf certificate. */
  private final class Recording extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager delegate;

    Recording(X509ExtendedTrustManager delegate) {
      this.delegate = delegate;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      serverCertificates.add(chain[0]);
      delegate.checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      serverCertificates.add(chain[0]);
      delegate.checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      serverCertificates.add(chain[0]);
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return delegate.getAcceptedIssuers();
    }
  }
}
