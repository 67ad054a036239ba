package dev.tern.testtools;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A TCP server on a free port of 127.0.0.1 that echoes every byte back, one connection at a time:
 * the upstream the proxy harnesses' tests forward to. Thread-safe: one thread serves, {@link
 * #close} from any thread stops it.
 */
final class ByteEchoServer implements AutoCloseable {
  private static final long JOIN_MILLIS = 10_000;

  private final ServerSocket socket;
  private final Thread thread;

  ByteEchoServer(String threadName) throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    thread = new Thread(this::serve, threadName);
    thread.setDaemon(true);
    thread.start();
  }

  int port() {
    return socket.getLocalPort();
  }

  private void serve() {
    while (!socket.isClosed()) {
      try (Socket connection = socket.accept()) {
        InputStream in = connection.getInputStream();
        OutputStream out = connection.getOutputStream();
        for (int b; (b = in.read()) >= 0; ) {
          out.write(b);
        }
      } catch (IOException e) {
        // The connection or the listening socket closed: next one, or the end.
      }
    }
  }

  /** Closes the listening socket and waits for the serving thread to end. */
  @Override
  public void close() throws IOException {
    socket.close();
    try {
      thread.join(JOIN_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
