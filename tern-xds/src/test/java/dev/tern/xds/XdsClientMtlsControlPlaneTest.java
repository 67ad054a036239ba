package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Status;
import dev.tern.testing.LogCapture;
import dev.tern.testtools.TestPems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bootstrap's {@code tls} channel credentials (A65) against the real control plane serving ADS
 * over TLS and requiring a client certificate: {@link XdsClient} gets its resources over mTLS; a
 * client certificate the control plane does not trust, or a control plane the roots do not trust,
 * fails each attempt with a status saying so and no resource; and certificates rotated on disk are
 * used by the next connection, with no restart. Tagged external-check (a control plane process per
 * test, and waits for reconnections).
 */
@Tag("external-check")
class XdsClientMtlsControlPlaneTest {
  private static final String NODE = "mtls-node";
  private static final String CLIENT = "xds-client";

  @TempDir Path dir;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private TestPems controlPlanePems;
  private TestPems clientPems;
  private TestPems intruderPems;
  private Path clientCert;
  private Path clientKey;
  private Path roots;
  private ControlPlaneProcess cp;

  @BeforeEach
  void setUp() throws Exception {
    controlPlanePems = TestPems.generate("control-plane", "ip:127.0.0.1");
    clientPems = TestPems.generate(CLIENT, "dns:client.tern.test");
    intruderPems = TestPems.generate("intruder", "dns:client.tern.test,ip:127.0.0.1");
    Path cpCert = Files.writeString(dir.resolve("cp.pem"), controlPlanePems.certificatePem);
    Path cpKey = Files.writeString(dir.resolve("cp.key"), controlPlanePems.keyPem);
    Path cpClientRoots = Files.writeString(dir.resolve("cp-roots.pem"), clientPems.certificatePem);
    clientCert = dir.resolve("client.pem");
    clientKey = dir.resolve("client.key");
    roots = dir.resolve("roots.pem");
    cp = closeLater(ControlPlaneProcess.startTls(cpCert, cpKey, cpClientRoots));
    cp.setSnapshot(NODE, "1", List.of(Resources.edsCluster("c1", "e1").build()));
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  private void writeClientFiles(TestPems identity, TestPems trusted) throws Exception {
    TestPems.replace(clientCert, identity.certificatePem);
    TestPems.replace(clientKey, identity.keyPem);
    TestPems.replace(roots, trusted.certificatePem);
  }

  /** A client whose bootstrap names the control plane with mTLS credentials on the test's files. */
  private XdsClient client() {
    String json =
        "{\"xds_servers\": [{\"server_uri\": \""
            + cp.target()
            + "\", \"channel_creds\": [{\"type\": \"tls\", \"config\": {"
            + "\"certificate_file\": \""
            + clientCert
            + "\", \"private_key_file\": \""
            + clientKey
            + "\", \"ca_certificate_file\": \""
            + roots
            + "\", \"refresh_interval\": \"0.2s\"}}]}], \"node\": {\"id\": \""
            + NODE
            + "\"}}";
    XdsClient.Options options =
        XdsClient.Options.defaults().withBackoff(Duration.ofMillis(100), Duration.ofMillis(500));
    return closeLater(XdsClient.create(Bootstrap.parse(json, "test bootstrap"), options));
  }

  private static RecordingWatcher<XdsCluster> watchCluster(XdsClient client) {
    RecordingWatcher<XdsCluster> watcher = new RecordingWatcher<>();
    client.watch(XdsResourceType.CLUSTER, "c1", watcher);
    return watcher;
  }

  /**
   * With the files as they are, the client's first event is an error (no resource before it): the
   * ADS stream failed UNAVAILABLE with a TLS handshake failure containing {@code reason}, and no
   * stream reached the control plane. After {@code fix} rewrites files, the next connection gets
   * the cluster, presenting the client certificate.
   */
  private void assertRefusedUntilFixed(String reason, FileChange fix) throws Exception {
    try (LogCapture logs = new LogCapture("dev.tern.xds", null)) {
      RecordingWatcher<XdsCluster> watcher = watchCluster(client());
      RecordingWatcher.Event<XdsCluster> first = watcher.await(e -> true, "first event");
      assertThat(first.changed()).as("a resource arrived without a trusted handshake").isNull();
      assertThat(first.error().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(first.error().getDescription())
          .contains("ADS stream to " + cp.target())
          .contains("TLS handshake failed")
          .contains(reason);
      assertThat(cp.clientCertificates()).isEmpty(); // no stream got past the handshake

      fix.run();
      assertThat(watcher.awaitChanged().edsServiceName()).isEqualTo("e1");
      assertThat(cp.clientCertificates()).containsExactly(CLIENT);
      assertThat(logs.records()).isNotEmpty(); // the failed streams, logged
    }
  }

  /** Rewrites some of the client's files. */
  private interface FileChange {
    void run() throws Exception;
  }

  @Test
  void resourcesArriveOverMutualTls() throws Exception {
    writeClientFiles(clientPems, controlPlanePems);
    XdsCluster cluster = watchCluster(client()).awaitChanged();
    assertThat(cluster.edsServiceName()).isEqualTo("e1");
    assertThat(cp.clientCertificates()).containsExactly(CLIENT);
  }

  @Test
  void anUntrustedClientCertificateFailsUntilATrustedOneIsRotatedIn() throws Exception {
    writeClientFiles(intruderPems, controlPlanePems);
    // The control plane's TLS refuses the certificate's issuer (TLS alert unknown_ca).
    assertRefusedUntilFixed("unknown_ca", () -> writeClientFiles(clientPems, controlPlanePems));
  }

  @Test
  void aControlPlaneTheRootsDoNotTrustIsRefusedUntilTheRootsAreRotated() throws Exception {
    writeClientFiles(clientPems, intruderPems);
    // The JDK's check of the control plane's certificate finds no path to the roots.
    assertRefusedUntilFixed(
        "PKIX path", () -> TestPems.replace(roots, controlPlanePems.certificatePem));
  }
}
