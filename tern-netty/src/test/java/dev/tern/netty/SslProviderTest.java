package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.Test;

/**
 * Which TLS implementation the transport uses. The build runs the TLS tests twice: with
 * netty-tcnative on the class path (OpenSSL) and without (the JDK's); each run names the provider
 * it expects in {@code tern.test.expectedSslProvider}, so a run that silently fell back to the
 * other is caught.
 */
class SslProviderTest {
  static final String EXPECTED = "tern.test.expectedSslProvider";

  @Test
  void theExpectedProviderIsUsed() throws Exception {
    String expected = System.getProperty(EXPECTED);
    assumeThat(expected).as(EXPECTED + " (set by the build's surefire executions)").isNotNull();
    SslProvider provider = SslProvider.valueOf(expected);
    assertThat(OpenSsl.isAvailable())
        .as("OpenSSL availability (cause if not: %s)", OpenSsl.unavailabilityCause())
        .isEqualTo(provider == SslProvider.OPENSSL);
    assertThat(NettySslContexts.provider()).isEqualTo(provider);
    SslContext context = NettySslContexts.forClient().build();
    assertThat(context)
        .isInstanceOf(provider == SslProvider.OPENSSL ? OpenSslContext.class : JdkSslContext.class);
  }
}
