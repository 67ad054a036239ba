package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TestMarshallers;
import dev.tern.testtools.TestPems;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bootstrap's {@code tls} channel credentials (A65): what parses, and each bad config or file
 * as a bootstrap error naming the field. The connections themselves are {@code
 * XdsClientMtlsControlPlaneTest}'s, against the real control plane.
 */
class ControlPlaneTlsTest {
  private static final MethodDescriptor<byte[], byte[]> CALL =
      MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
          .setFullMethodName("svc.A/Call")
          .setType(MethodDescriptor.MethodType.UNARY)
          .build();

  @TempDir Path dir;
  private Path cert;
  private Path key;
  private Path roots;

  @BeforeEach
  void writePems() throws Exception {
    TestPems client = TestPems.generate("client", "dns:client.tern.test");
    cert = Files.writeString(dir.resolve("cp-tls-client.pem"), client.certificatePem);
    key = Files.writeString(dir.resolve("client.key"), client.keyPem);
    roots = Files.writeString(dir.resolve("cp-tls-roots.pem"), client.certificatePem);
  }

  private static Bootstrap parse(String credsConfig) {
    return Bootstrap.parse(
        "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:1\", \"channel_creds\": [{\"type\":"
            + " \"alts\"}, {\"type\": \"tls\""
            + (credsConfig == null ? "" : ", \"config\": " + credsConfig)
            + "}]}]}",
        "test.json");
  }

  private static String json(Path file) {
    return "\"" + file.toString().replace("\\", "\\\\") + "\"";
  }

  private String config(String cert, String key, String roots, String interval) {
    StringBuilder out = new StringBuilder("{");
    String sep = "";
    for (String[] field :
        new String[][] {
          {"certificate_file", cert},
          {"private_key_file", key},
          {"ca_certificate_file", roots},
          {"refresh_interval", interval}
        }) {
      if (field[1] != null) {
        out.append(sep).append('"').append(field[0]).append("\": ").append(field[1]);
        sep = ", ";
      }
    }
    return out.append('}').toString();
  }

  private void assertBootstrapError(String credsConfig, String message) {
    assertThatThrownBy(() -> parse(credsConfig))
        .isInstanceOf(XdsBootstrapException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void everyFieldIsTakenAndTheFirstSupportedTypeWins() {
    Bootstrap.ServerInfo server =
        parse(config(json(cert), json(key), json(roots), "\"2.5s\"")).xdsServers().get(0);
    assertThat(server.channelCredsType()).isEqualTo("tls");
    assertThat(FileWatcherConfig.parseChannelCreds(server.channelCredsConfig()))
        .isEqualTo(
            new FileWatcherConfig(
                cert.toString(), key.toString(), roots.toString(), null, Duration.ofMillis(2500)));
  }

  @Test
  void noConfigMeansTlsWithThePlatformsRootsAndNoClientCertificate() throws Exception {
    Bootstrap.ServerInfo server = parse(null).xdsServers().get(0);
    assertThat(server.channelCredsType()).isEqualTo("tls");
    assertThat(FileWatcherConfig.parseChannelCreds(server.channelCredsConfig()))
        .isEqualTo(new FileWatcherConfig(null, null, null, null, Duration.ofMinutes(10)));
    ManagedChannel channel = XdsClient.defaultChannel(server);
    try {
      assertThat(channel.authority()).isEqualTo("127.0.0.1:1");
    } finally {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aChannelWithFilesStopsFollowingThemWhenShutDown() throws Exception {
    Bootstrap.ServerInfo server =
        parse(config(json(cert), json(key), json(roots), null)).xdsServers().get(0);
    ManagedChannel channel = XdsClient.defaultChannel(server);
    List<Thread> watchers = watcherThreads();
    assertThat(watchers).hasSize(2); // the key manager's and the trust manager's
    channel.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    for (Thread watcher : watchers) {
      watcher.join(10_000);
      assertThat(watcher.isAlive()).as(watcher.getName()).isFalse();
    }
  }

  /** The threads of tern-core's reloading managers following this test's files. */
  private static List<Thread> watcherThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("tern-tls-reload-cp-tls-"))
        .toList();
  }

  @Test
  void filesGoneAfterTheBootstrapWasReadFailEachCallWithALogInsteadOfAHang() throws Exception {
    Bootstrap.ServerInfo server =
        parse(config(json(cert), json(key), json(roots), null)).xdsServers().get(0);
    Files.delete(cert);
    Server tlsServer =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .useTransportSecurity(roots.toFile(), key.toFile())
            .build()
            .start();
    try (LogCapture logs = new LogCapture(ControlPlaneTls.class)) {
      ManagedChannel channel =
          XdsClient.defaultChannel(
              new Bootstrap.ServerInfo(
                  "127.0.0.1:" + tlsServer.getPort(),
                  server.channelCredsType(),
                  server.channelCredsConfig(),
                  List.of()));
      try {
        assertThat(logs.records())
            .singleElement()
            .satisfies(
                r -> {
                  assertThat(r.getLevel()).isEqualTo(Level.SEVERE);
                  assertThat(new SimpleFormatter().formatMessage(r))
                      .contains("cannot be used")
                      .contains(cert.toString());
                });
        assertThatThrownBy(
                () ->
                    ClientCalls.blockingUnaryCall(
                        channel,
                        CALL,
                        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
                        new byte[0]))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                  assertThat(e.getStatus().getDescription()).contains("TLS handshake failed");
                });
      } finally {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      tlsServer.shutdownNow();
      assertThat(tlsServer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aMissingFileIsABootstrapErrorNamingTheField() {
    assertBootstrapError(
        config(json(dir.resolve("absent.pem")), json(key), null, null),
        "test.json: xds_servers[0].channel_creds[1].config: certificate_file "
            + dir.resolve("absent.pem")
            + ": cannot be read (NoSuchFileException)");
    assertBootstrapError(
        config(null, null, json(dir.resolve("absent-roots.pem")), null),
        "test.json: xds_servers[0].channel_creds[1].config: ca_certificate_file "
            + dir.resolve("absent-roots.pem")
            + ": cannot be read");
  }

  @Test
  void filesThatAreNotWhatTheFieldSaysAreBootstrapErrors() throws Exception {
    assertBootstrapError(
        config(json(key), json(key), null, null),
        "test.json: xds_servers[0].channel_creds[1].config: certificate_file " + key + ": no PEM");
    assertBootstrapError(
        config(null, null, json(key), null),
        "test.json: xds_servers[0].channel_creds[1].config: ca_certificate_file " + key);
    Path otherKey =
        Files.writeString(
            dir.resolve("other.key"), TestPems.generate("other", "dns:other.tern.test").keyPem);
    assertBootstrapError(
        config(json(cert), json(otherKey), null, null),
        "test.json: xds_servers[0].channel_creds[1].config: private_key_file and"
            + " certificate_file");
  }

  @Test
  void badConfigIsABootstrapErrorNamingTheField() {
    String at = "test.json: xds_servers[0].channel_creds[1].config: ";
    assertBootstrapError(
        config(json(cert), null, null, null),
        at + "certificate_file and private_key_file must be given together");
    assertBootstrapError(
        config(null, json(key), null, null),
        at + "certificate_file and private_key_file must be given together");
    assertBootstrapError(
        config(null, null, "\"\"", null), at + "ca_certificate_file must be a non-empty string");
    assertBootstrapError(
        config(null, null, null, "\"10\""), at + "refresh_interval must be a duration");
    assertBootstrapError(config(null, null, null, "\"0s\""), at + "refresh_interval must be");
    assertBootstrapError(
        "[]", "test.json: xds_servers[0].channel_creds[1].config: must be an object, was an array");
  }
}
