package dev.tern.netty.internal.server;

import dev.tern.Status;
import dev.tern.spi.ServerTransportListener;
import io.netty.channel.ChannelHandler;

/**
 * The handler that serves gRPC on one HTTP/2 connection, as {@link NettyServerTransport} drives it:
 * on Netty's HTTP/2 codec ({@link ServerHandler}, the default) or on Tern's own engine ({@link
 * EngineServerHandler}, chosen by {@code NettyServerBuilder.useTernHttp2Engine}).
 *
 * <p>Threads: {@link #setTransportListener} before the channel is registered; {@link
 * #markShutdownRequested}, {@link #isShutdownRequested} on any thread; the rest on the event loop.
 */
interface Http2ServerConnection extends ChannelHandler {
  static Http2ServerConnection create(NettyServerTransport transport, ServerOptions options) {
    return options.ternHttp2Engine()
        ? new EngineServerHandler(transport, options)
        : ServerHandler.create(transport, options);
  }

  void setTransportListener(ServerTransportListener listener);

  /** The connection's windows for channelz: what this side may send, what the peer may send. */
  long[] flowControlWindows();

  /** The runtime asked for shutdown (any thread): requests read from now on are refused. */
  void markShutdownRequested();

  /** Whether the runtime asked for shutdown (any thread). */
  boolean isShutdownRequested();

  /** Starts the double-GOAWAY graceful shutdown. */
  void gracefulShutdown();

  /** Fails every call with {@code status} and closes the connection. */
  void shutdownNow(Status status);
}
