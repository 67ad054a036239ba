package dev.tern.examples.compression;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.examples.compression.CompressingHelloWorldClient.Report;
import dev.tern.testing.TernCleanupExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The compression example over HTTP/2: what the client sees of gzip on the wire. */
class CompressionTest {
  private static final String LONG_NAME = "Ada ".repeat(100);
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  private String target;

  @BeforeEach
  void start() throws Exception {
    target = "127.0.0.1:" + cleanup.register(CompressingHelloWorldServer.start(0)).getPort();
  }

  @Test
  void withCompressionGzipShrinksTheRequestAndTheServerGzipsTheResponse() throws Exception {
    Report report = CompressingHelloWorldClient.sayHello(target, LONG_NAME, "gzip");

    // 400 characters of "Ada " squeeze to a few dozen bytes.
    assertThat(report.requestBytes()).isGreaterThan(400);
    assertThat(report.requestWireBytes()).isLessThan(report.requestBytes() / 4);
    assertThat(report.responseEncoding()).isEqualTo("gzip");
  }

  @Test
  void withoutCompressionTheRequestGoesAsItIsAndTheResponseIsStillGzipped() throws Exception {
    Report report = CompressingHelloWorldClient.sayHello(target, LONG_NAME, null);

    // On the wire: the message plus its 5-byte gRPC frame header.
    assertThat(report.requestWireBytes())
        .isBetween(report.requestBytes(), report.requestBytes() + 5);
    assertThat(report.responseEncoding()).isEqualTo("gzip");
  }
}
