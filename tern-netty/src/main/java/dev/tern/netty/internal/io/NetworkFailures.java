package dev.tern.netty.internal.io;

import dev.tern.Status;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The failures the network makes ordinary (a peer resetting the connection, a failed TLS handshake,
 * a plaintext peer on a TLS port, a peer cut off for not reading): how they are recognised, the
 * status of the calls they end, and the one FINE line each is logged as, on {@code
 * dev.tern.netty.connections}, by client and server handlers, the HTTP/1.1 handler and the protocol
 * detectors alike.
 *
 * <p>Stateless; thread-safe.
 */
public final class NetworkFailures {
  /** Where expected network failures are logged, one FINE line each. */
  static final Logger LOGGER = Logger.getLogger("dev.tern.netty.connections");

  private NetworkFailures() {}

  /** Logs one FINE line naming the connection's addresses and the failure, without its stack. */
  public static void log(ChannelHandlerContext ctx, String what, Throwable failure) {
    if (LOGGER.isLoggable(Level.FINE)) {
      log(ctx, what, describe(failure));
    }
  }

  /** Logs one FINE line naming the connection's addresses and {@code problem}. */
  public static void log(ChannelHandlerContext ctx, String what, String problem) {
    if (LOGGER.isLoggable(Level.FINE)) {
      LOGGER.log(
          Level.FINE,
          "Connection {0} -> {1} {2}: {3}",
          new Object[] {
            addressText(ctx.channel().localAddress()),
            addressText(ctx.channel().remoteAddress()),
            what,
            problem
          });
    }
  }

  /**
   * The I/O failure behind {@code cause} (a reset, a broken pipe, a TLS failure, possibly wrapped
   * by a decoder), or null if {@code cause} is something else.
   */
  public static IOException ioFailure(Throwable cause) {
    Throwable t = cause;
    if (t == null) {
      return null;
    }
    if (t instanceof DecoderException && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof IOException ? (IOException) t : null;
  }

  /**
   * The status of the calls a connection's I/O failure ended (a reset by the peer, a broken pipe):
   * UNAVAILABLE, saying so, with the failure as the cause.
   */
  public static Status status(IOException failure) {
    String message = failure.getMessage();
    return Status.UNAVAILABLE
        .withDescription(
            "I/O error on the connection: "
                + (message != null ? message : failure.getClass().getSimpleName()))
        .withCause(failure);
  }

  /**
   * An address for a log line: {@code host:port} ({@code [v6]:port} for IPv6) for TCP, {@code
   * unix:path} for a domain socket.
   */
  public static String addressText(SocketAddress address) {
    if (address instanceof InetSocketAddress) {
      InetSocketAddress inet = (InetSocketAddress) address;
      String host = inet.getHostString();
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
    }
    return "unix:" + address;
  }

  /** The failure's class and message, without its stack. */
  private static String describe(Throwable failure) {
    if (failure instanceof DecoderException && failure.getCause() != null) {
      failure = failure.getCause();
    }
    String message = failure.getMessage();
    if (message != null && message.length() > 200) {
      message = message.substring(0, 200) + "...";
    }
    return failure.getClass().getSimpleName() + ": " + message;
  }
}
