package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ConnectivityState;
import dev.tern.ManagedChannel;
import dev.tern.testing.Await;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A channel shut down while its connection attempt is still on its way terminates at once, instead
 * of waiting for the attempt to time out.
 */
class ShutdownWhileConnectingTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void aChannelShutDownWhileConnectingTerminates() throws IOException, InterruptedException {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Backlog full = Backlog.fill(listener)) {
      ManagedChannel channel =
          cleanup.register(
              NettyChannelBuilder.forAddress("127.0.0.1", listener.getLocalPort())
                  .usePlaintext()
                  .connectTimeout(10, TimeUnit.MINUTES)
                  .build());
      assertThat(channel.getState(true)).isIn(ConnectivityState.IDLE, ConnectivityState.CONNECTING);
      channel.shutdown();
      assertThat(channel.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS))
          .as("terminated while its connection attempt waited behind %s", full)
          .isTrue();
    }
  }

  /**
   * Connections that fill a listener's accept queue, so that the kernel leaves the next attempt
   * waiting for an answer to its SYN.
   */
  private static final class Backlog implements AutoCloseable {
    private final List<Socket> sockets = new ArrayList<>();

    static Backlog fill(ServerSocket listener) throws IOException {
      Backlog backlog = new Backlog();
      InetSocketAddress address =
          new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
      for (int i = 0; i < 64; i++) {
        Socket socket = new Socket();
        backlog.sockets.add(socket);
        try {
          socket.connect(address, 200);
        } catch (SocketTimeoutException full) {
          return backlog; // this attempt was left waiting: the next one will be too
        }
      }
      backlog.close();
      throw new IllegalStateException("the accept queue did not fill after 64 connections");
    }

    @Override
    public String toString() {
      return sockets.size() + " connections filling the accept queue";
    }

    @Override
    public void close() throws IOException {
      for (Socket socket : sockets) {
        socket.close();
      }
    }
  }
}
