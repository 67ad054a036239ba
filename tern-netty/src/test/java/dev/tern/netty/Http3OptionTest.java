package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NettyServerBuilder#enableHttp3()} where it cannot work: tern-netty's own tests run without
 * tern-http3, and HTTP/3 needs TLS from credentials. {@code build()} says which, never a server
 * without its HTTP/3 half.
 */
class Http3OptionTest {
  @TempDir Path dir;

  @Test
  void withoutTernHttp3BuildSaysToAddIt() throws Exception {
    TestCertificates certs = TestCertificates.generate("tern-h3");
    Path cert = PemWriter.write(dir, "cert.pem", PemWriter.certificates(certs.certificate));
    Path key = PemWriter.write(dir, "key.pem", PemWriter.pkcs8(certs.key));
    NettyServerBuilder builder =
        NettyServerBuilder.forPort(0).useTransportSecurity(cert.toFile(), key.toFile());

    assertThatThrownBy(() -> builder.enableHttp3().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "enableHttp3() needs the tern-http3 module (dev.tern:tern-http3) on the class path or"
                + " module path");
  }

  @Test
  void withoutTlsCredentialsBuildSaysHttp3NeedsThem() throws Exception {
    TestCertificates certs = TestCertificates.generate("tern-h3");
    NettyServerBuilder plaintext = NettyServerBuilder.forPort(0).enableHttp3();
    NettyServerBuilder bareContext =
        NettyServerBuilder.forPort(0)
            .sslContext(NettySslContexts.forServer(certs.key, certs.certificate).build())
            .enableHttp3();

    for (NettyServerBuilder builder : new NettyServerBuilder[] {plaintext, bareContext}) {
      assertThatThrownBy(builder::build)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("enableHttp3() needs TLS configured from credentials");
    }
  }
}
