package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the real proxy.py: skipped where it is not installed, failed then under {@code CI=true}. A
 * raw socket asks it for a tunnel to a one-byte echo server on 127.0.0.1.
 */
class ProxyPyTest {
  private static final int READ_TIMEOUT_MILLIS = 10_000;

  private ByteEchoServer echo;

  @BeforeEach
  void startEcho() throws IOException {
    echo = new ByteEchoServer("proxy-py-test-echo");
  }

  @AfterEach
  void stopEcho() throws Exception {
    echo.close();
  }

  private String target() {
    return "127.0.0.1:" + echo.port();
  }

  /** Sends CONNECT (with {@code authorization} if not null); returns the answer's head. */
  private static String connect(Socket socket, String target, String authorization)
      throws IOException {
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    String request =
        "CONNECT "
            + target
            + " HTTP/1.1\r\nHost: "
            + target
            + "\r\n"
            + (authorization == null ? "" : "Proxy-Authorization: " + authorization + "\r\n")
            + "\r\n";
    socket.getOutputStream().write(request.getBytes(ISO_8859_1));
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    InputStream in = socket.getInputStream();
    while (!head.toString(ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
    }
    return head.toString(ISO_8859_1);
  }

  @Test
  void opensATunnelAndLogsTheConnect() throws Exception {
    try (ProxyPy proxy = ProxyPy.start()) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", proxy.port()), READ_TIMEOUT_MILLIS);
        assertThat(connect(socket, target(), null)).startsWith("HTTP/1.1 200");

        socket.getOutputStream().write('x');
        assertThat(socket.getInputStream().read()).as("echoed through the tunnel").isEqualTo('x');
      }
      assertThat(proxy.connectsTo(target(), Duration.ofSeconds(10))).as(proxy.output()).isTrue();
      assertThat(proxy.connects()).containsExactly(target());
    }
  }

  @Test
  void withBasicAuthItRefusesWrongCredentialsAndAcceptsRightOnes() throws Exception {
    try (ProxyPy proxy = ProxyPy.startWithBasicAuth("alice", "s3cret")) {
      try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
        assertThat(connect(socket, target(), null)).startsWith("HTTP/1.1 407");
      }
      String wrong = Base64.getEncoder().encodeToString("alice:nope".getBytes(ISO_8859_1));
      try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
        assertThat(connect(socket, target(), "Basic " + wrong)).startsWith("HTTP/1.1 407");
      }
      String right = Base64.getEncoder().encodeToString("alice:s3cret".getBytes(ISO_8859_1));
      try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
        assertThat(connect(socket, target(), "Basic " + right)).startsWith("HTTP/1.1 200");
      }
    }
  }

  @Test
  void closeStopsTheProcess() throws Exception {
    ProxyPy proxy = ProxyPy.start();
    ProcessHandle handle = ProcessHandle.of(proxy.pid()).orElseThrow();

    proxy.close();

    assertThat(handle.isAlive()).isFalse();
  }

  @Test
  void aUserWithAColonIsRefusedNamingTheArgument() {
    assertThatThrownBy(() -> ProxyPy.startWithBasicAuth("a:b", "pw"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("user must be non-empty and without ':'");
  }
}
