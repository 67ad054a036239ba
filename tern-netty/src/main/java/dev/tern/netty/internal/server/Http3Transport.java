package dev.tern.netty.internal.server;

import dev.tern.TlsServerCredentials;
import dev.tern.spi.ServerListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The seam through which a Netty server serves HTTP/3 on UDP beside HTTP/2 on TCP: implemented by
 * tern-http3 (which brings QUIC's native library, so applications add it only if they want it) and
 * found by {@link java.util.ServiceLoader} when {@code NettyServerBuilder.enableHttp3()} is built.
 * Implementations are stateless and thread-safe.
 */
public interface Http3Transport {
  /**
   * A UDP endpoint serving gRPC over HTTP/3 with the server's limits and TLS 1.3 from {@code
   * credentials}.
   *
   * @throws IllegalArgumentException if the credentials cannot make a QUIC TLS context (the message
   *     says why)
   */
  Endpoint newEndpoint(ServerOptions options, TlsServerCredentials credentials);

  /** One listening UDP socket. Thread-safe. */
  interface Endpoint {
    /**
     * Binds {@code address} (UDP) and reports each QUIC connection to {@code listener} as a
     * transport; {@code stopped} runs once, when the socket has closed after {@link #shutdown}.
     *
     * @throws IOException if binding fails (a {@link java.net.BindException} if in use)
     */
    void start(InetSocketAddress address, ServerListener listener, Runnable stopped)
        throws IOException;

    /**
     * Refuses new connections; the socket closes once those open have ended (the server shuts each
     * of them down). Idempotent.
     */
    void shutdown();

    /** The bound UDP address, or null before {@link #start}. */
    SocketAddress localAddress();
  }
}
