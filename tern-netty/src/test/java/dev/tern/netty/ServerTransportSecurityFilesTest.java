package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ServerBuilder.forPort(0).useTransportSecurity(certChain, privateKey)} with PEM files, as a
 * grpc-java user writes it, finds the Netty server and serves TLS.
 */
class ServerTransportSecurityFilesTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  @TempDir Path dir;

  @Test
  void pemFilesServeTls() throws Exception {
    TestCertificates certs = TestCertificates.generate("tern-pem");
    Path cert = pem(dir.resolve("cert.pem"), "CERTIFICATE", certs.certificate.getEncoded());
    Path key = pem(dir.resolve("key.pem"), "PRIVATE KEY", certs.key.getEncoded());
    assertServesTls(certs, cert, key);
  }

  /** PKCS#1 ("BEGIN RSA PRIVATE KEY") keys, which Netty alone reads only with BouncyCastle. */
  @Test
  void pkcs1RsaKeyServesTls() throws Exception {
    TestCertificates certs = TestCertificates.generate("tern-pem-rsa", "RSA");
    Path cert = pem(dir.resolve("cert.pem"), "CERTIFICATE", certs.certificate.getEncoded());
    Path key = PemWriter.write(dir, "key.pem", PemWriter.pkcs1(certs.key));
    assertServesTls(certs, cert, key);
  }

  private static void assertServesTls(TestCertificates certs, Path cert, Path key)
      throws Exception {
    Server server =
        ServerBuilder.forPort(0)
            .useTransportSecurity(cert.toFile(), key.toFile())
            .addService(EchoService.definition())
            .build()
            .start();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("localhost", server.getPort())
            .sslContext(NettySslContexts.forClient().trustManager(certs.certificate).build())
            .build();
    try {
      assertThat(
              ClientCalls.blockingUnaryCall(
                  channel,
                  EchoService.UNARY,
                  CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                  "over TLS"))
          .isEqualTo("over TLS");
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void unreadableKeyIsAnIllegalArgumentNamingTheArguments() throws Exception {
    Path cert = Files.writeString(dir.resolve("cert.pem"), "not a certificate");
    Path key = Files.writeString(dir.resolve("key.pem"), "not a key");

    assertThatThrownBy(
            () -> NettyServerBuilder.forPort(0).useTransportSecurity(cert.toFile(), key.toFile()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("certChain/privateKey: no TLS server context from")
        .hasMessageContaining("certificate chain file " + cert + ": no PEM certificate");
  }

  private static Path pem(Path file, String type, byte[] der) throws Exception {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return Files.writeString(
        file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
  }
}
