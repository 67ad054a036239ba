package dev.tern.testtools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the real Toxiproxy server: skipped where it is not installed, failed then under {@code
 * CI=true}. Its proxy forwards to a one-byte echo server on 127.0.0.1.
 */
class ToxiproxyTest {
  private static final int READ_TIMEOUT_MILLIS = 10_000;

  private ByteEchoServer echo;
  private Toxiproxy toxiproxy;

  @BeforeEach
  void startEcho() throws IOException {
    echo = new ByteEchoServer("toxiproxy-test-echo");
  }

  @AfterEach
  void stop() throws Exception {
    if (toxiproxy != null) {
      toxiproxy.close();
    }
    echo.close();
  }

  @Test
  void proxyForwardsAndAToxicResetsIt() throws Exception {
    toxiproxy = Toxiproxy.start();
    int port = toxiproxy.createProxy("echo", "127.0.0.1:" + echo.port());

    try (Socket socket = connect(port)) {
      assertThat(roundTrip(socket, 'a')).as("the echo through the proxy").isEqualTo('a');
    }

    toxiproxy.addToxic("echo", "reset", "reset_peer", false, Map.of("timeout", 0L));
    try (Socket socket = connect(port)) {
      assertThatThrownBy(() -> roundTrip(socket, 'b'))
          .as("reset_peer resets the connection once the client sends")
          .isInstanceOf(IOException.class);
    }
    toxiproxy.removeToxic("echo", "reset");
    try (Socket socket = connect(port)) {
      assertThat(roundTrip(socket, 'c')).as("the echo once the toxic is gone").isEqualTo('c');
    }
  }

  @Test
  void disabledProxyRefusesUntilEnabledAgain() throws Exception {
    toxiproxy = Toxiproxy.start();
    int port = toxiproxy.createProxy("echo", "127.0.0.1:" + echo.port());

    toxiproxy.setEnabled("echo", false);
    assertThatThrownBy(() -> connect(port).close()).isInstanceOf(IOException.class);

    toxiproxy.setEnabled("echo", true);
    try (Socket socket = connect(port)) {
      assertThat(roundTrip(socket, 'd')).isEqualTo('d');
    }
  }

  @Test
  void badArgumentsAndRefusedRequestsSayWhat() throws Exception {
    toxiproxy = Toxiproxy.start();

    assertThatThrownBy(() -> toxiproxy.createProxy("no spaces", "127.0.0.1:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(() -> toxiproxy.createProxy("p", "localhost"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("upstream");
    assertThatThrownBy(() -> toxiproxy.removeToxic("missing", "t"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("/proxies/missing/toxics/t")
        .hasMessageContaining("404");
  }

  private static Socket connect(int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), port), READ_TIMEOUT_MILLIS);
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    return socket;
  }

  private static char roundTrip(Socket socket, char c) throws IOException {
    socket.getOutputStream().write(c);
    socket.getOutputStream().flush();
    int read = socket.getInputStream().read();
    if (read < 0) {
      throw new IOException("connection closed");
    }
    return (char) read;
  }
}
