package dev.tern.grpcjava.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.grpcjava.spring.proto.EchoGrpc;
import dev.tern.grpcjava.spring.proto.EchoRequest;
import dev.tern.testtools.TestPems;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;

/**
 * {@code spring.grpc.server.ssl.*} on tern-grpc-java's auto-configured server, as Spring gRPC's
 * Netty factory applies it: the key and trust of the Spring Boot SSL bundle it names ({@code
 * spring.ssl.bundle.pem.*}), and {@code client-auth}. Real TLS handshakes from grpc-java's API
 * (bridged channels) against the application's server; keys made by keytool for each run.
 */
class ServerSslPropertiesTest {
  private static TestPems server;
  private static TestPems client;
  private static TestPems stranger;

  @TempDir static Path dir;

  @BeforeAll
  static void makeKeys() throws Exception {
    server = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    client = TestPems.generate("client", "dns:client");
    stranger = TestPems.generate("stranger", "dns:stranger");
  }

  /** Writes a PEM to a file and returns its {@code file:} location, as Spring's properties take. */
  private static String file(String name, String pem) throws IOException {
    Path path = dir.resolve(name);
    Files.writeString(path, pem);
    return "file:" + path;
  }

  private static ConfigurableApplicationContext start(String... properties) {
    List<String> all = new ArrayList<>(List.of(properties));
    all.add("spring.grpc.server.port=0");
    all.add("spring.main.banner-mode=off");
    return new SpringApplicationBuilder(SpringEchoApplication.class)
        .web(WebApplicationType.NONE)
        .properties(all.toArray(String[]::new))
        .run();
  }

  /** The server's bundle: its key and certificate, trusting the client's certificate. */
  private static List<String> serverBundle() throws IOException {
    return List.of(
        "spring.ssl.bundle.pem.grpc-server.keystore.certificate="
            + file("server.pem", server.certificatePem),
        "spring.ssl.bundle.pem.grpc-server.keystore.private-key="
            + file("server.key", server.keyPem),
        "spring.ssl.bundle.pem.grpc-server.truststore.certificate="
            + file("client.pem", client.certificatePem),
        "spring.grpc.server.ssl.bundle=grpc-server");
  }

  private static ChannelCredentials tls(TestPems identity) throws IOException {
    TlsChannelCredentials.Builder credentials =
        TlsChannelCredentials.newBuilder().trustManager(stream(server.certificatePem));
    if (identity != null) {
      credentials.keyManager(stream(identity.certificatePem), stream(identity.keyPem));
    }
    return credentials.build();
  }

  private static ByteArrayInputStream stream(String pem) {
    return new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8));
  }

  /** Says hello to the application's server with these credentials, through a bridged channel. */
  private static String hello(ConfigurableApplicationContext app, ChannelCredentials credentials)
      throws InterruptedException {
    int port = app.getBean(GrpcServerLifecycle.class).getPort();
    ManagedChannel channel = Grpc.newChannelBuilder("localhost:" + port, credentials).build();
    try {
      return EchoGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .say(EchoRequest.newBuilder().setText("tls").build())
          .getText();
    } finally {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aBundleMakesTheServerServeTlsWithItsKey() throws Exception {
    try (ConfigurableApplicationContext app = start(serverBundle().toArray(String[]::new))) {
      assertThat(hello(app, tls(null))).isEqualTo("Hello, tls");
      // Plaintext no longer reaches it.
      assertThatThrownBy(() -> hello(app, InsecureChannelCredentials.create()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }
  }

  @Test
  void clientAuthRequireAcceptsOnlyClientsTheBundleTrusts() throws Exception {
    List<String> properties = new ArrayList<>(serverBundle());
    properties.add("spring.grpc.server.ssl.client-auth=REQUIRE");
    try (ConfigurableApplicationContext app = start(properties.toArray(String[]::new))) {
      assertThat(hello(app, tls(client))).isEqualTo("Hello, tls");
      for (TestPems refused : new TestPems[] {null, stranger}) {
        assertThatThrownBy(() -> hello(app, tls(refused)))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      }
    }
  }

  @Test
  void insecureClientAuthAcceptsAnyClientCertificate() throws Exception {
    // secure=false: Spring's Netty factory trusts any client certificate; so does Tern's server.
    List<String> properties = new ArrayList<>(serverBundle());
    properties.add("spring.grpc.server.ssl.client-auth=REQUIRE");
    properties.add("spring.grpc.server.ssl.secure=false");
    try (ConfigurableApplicationContext app = start(properties.toArray(String[]::new))) {
      assertThat(hello(app, tls(stranger))).isEqualTo("Hello, tls");
    }
  }

  @Test
  void sslEnabledWithoutABundleStopsTheApplicationNamingTheProperty() {
    assertThatThrownBy(() -> start("spring.grpc.server.ssl.enabled=true"))
        .rootCause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("spring.grpc.server.ssl.bundle names no SSL bundle");
  }

  @Test
  void anUnknownBundleStopsTheApplicationNamingIt() {
    assertThatThrownBy(() -> start("spring.grpc.server.ssl.bundle=missing"))
        .rootCause()
        .isInstanceOf(NoSuchSslBundleException.class)
        .hasMessageContaining("missing");
  }
}
