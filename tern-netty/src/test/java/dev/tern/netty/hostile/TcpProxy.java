package dev.tern.netty.hostile;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP proxy whose connections a test can cut at once, to play a server host that dies
 * (no GOAWAY, no RST_STREAM: the bytes just stop and the socket closes), or silence, to play one
 * that vanished from the network (the sockets stay open, nothing gets through).
 *
 * <p>Thread-safe: one accepting thread and two pumping threads per connection, all daemon threads
 * of its own executor; the list of open sockets is guarded by {@code this}.
 */
final class TcpProxy implements Closeable {
  private final ServerSocket listener;
  private final int targetPort;
  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "tcp-proxy");
            thread.setDaemon(true);
            return thread;
          });
  // Guarded by this.
  private final List<Socket> open = new ArrayList<>();
  // Once set, bytes are read and dropped in both directions: a peer that went silent.
  private volatile boolean silent;

  private TcpProxy(ServerSocket listener, int targetPort) {
    this.listener = listener;
    this.targetPort = targetPort;
  }

  /** Starts a proxy on a free loopback port, forwarding to loopback {@code targetPort}. */
  static TcpProxy start(int targetPort) throws IOException {
    TcpProxy proxy =
        new TcpProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), targetPort);
    proxy.threads.execute(proxy::acceptLoop);
    return proxy;
  }

  int port() {
    return listener.getLocalPort();
  }

  /** Closes every connection made so far, abruptly; new connections are still accepted. */
  synchronized void cutConnections() {
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  /**
   * From now on drops every byte in both directions while keeping the connections open, as a host
   * that vanished from the network would (no FIN, no RST: only keepalive can notice).
   */
  void goSilent() {
    silent = true;
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        synchronized (this) {
          open.add(client);
          open.add(server);
        }
        threads.execute(() -> pump(client, server));
        threads.execute(() -> pump(server, client));
      } catch (IOException e) {
        // The listener was closed (or one connection failed): keep going while it is open.
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[64 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        if (!silent) {
          out.write(buffer, 0, n);
        }
      }
    } catch (IOException e) {
      // Cut, or the peer went away: close both sides below.
    }
    closeQuietly(from);
    closeQuietly(to);
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Closing anyway.
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    cutConnections();
    threads.shutdown();
    try {
      if (!threads.awaitTermination(10, TimeUnit.SECONDS)) {
        throw new IOException("proxy threads did not stop");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while stopping the proxy", e);
    }
  }
}
