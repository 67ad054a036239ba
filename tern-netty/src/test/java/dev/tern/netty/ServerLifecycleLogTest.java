package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.netty.testing.EchoHttpProtocol;
import dev.tern.netty.testing.HeldHttpProtocol;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import java.net.InetSocketAddress;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * A server says, once at INFO, where it listens and how (protocol, TLS or plaintext, Netty
 * transport kind), and once when it stops; serving calls logs nothing at INFO.
 */
class ServerLifecycleLogTest {
  private static final String LOGGER = "dev.tern.netty.server";

  @Test
  void plaintextServerLogsItsAddressWhenItStartsAndWhenItStops() throws Exception {
    try (LogCapture log = new LogCapture(LOGGER, Level.INFO)) {
      Server server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .addService(EchoService.definition())
              .build()
              .start();
      String where = "127.0.0.1:" + server.getPort();
      String kind = EventLoops.sharedKind().id();
      try {
        assertThat(log.records()).singleElement().satisfies(r -> assertInfo(r));
        assertThat(format(log.records().get(0)))
            .isEqualTo("Tern server listening on " + where + " (HTTP/2, plaintext, " + kind + ")");
      } finally {
        server.shutdown();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
      LogRecord stopped =
          log.awaitRecord(r -> format(r).contains("stopped"), Duration.ofSeconds(10));
      assertInfo(stopped);
      assertThat(format(stopped))
          .isEqualTo("Tern server on " + where + " (HTTP/2, plaintext, " + kind + ") stopped");
      assertThat(log.records()).hasSize(2);
    }
  }

  @Test
  void tlsServerSaysItSpeaksTls() throws Exception {
    TestCertificates certs = TestCertificates.generate("tern-server");
    try (LogCapture log = new LogCapture(LOGGER, Level.INFO)) {
      Server server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .sslContext(NettySslContexts.forServer(certs.key, certs.certificate).build())
              .addService(EchoService.definition())
              .build()
              .start();
      try {
        assertThat(format(log.records().get(0)))
            .startsWith(
                "Tern server listening on 127.0.0.1:" + server.getPort() + " (HTTP/2, TLS, ");
      } finally {
        server.shutdown();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  @Test
  void serverWithProtocolsBesideGrpcNamesThem() throws Exception {
    try (LogCapture log = new LogCapture(LOGGER, Level.INFO)) {
      Server server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .httpProtocols(new EchoHttpProtocol(), new HeldHttpProtocol())
              .addService(EchoService.definition())
              .build()
              .start();
      try {
        assertThat(format(log.records().get(0)))
            .isEqualTo(
                "Tern server listening on 127.0.0.1:"
                    + server.getPort()
                    + " (HTTP/2 and HTTP/1.1 serving gRPC + echo + held, plaintext, "
                    + EventLoops.sharedKind().id()
                    + ")");
      } finally {
        server.shutdown();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  private static void assertInfo(LogRecord record) {
    assertThat(record.getLevel()).isEqualTo(Level.INFO);
    assertThat(record.getThrown()).isNull();
  }

  private static String format(LogRecord record) {
    return MessageFormat.format(record.getMessage(), record.getParameters());
  }
}
