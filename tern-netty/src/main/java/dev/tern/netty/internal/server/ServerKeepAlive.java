package dev.tern.netty.internal.server;

import dev.tern.Status;
import dev.tern.netty.internal.io.KeepAlivePinger;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The server's keepalive: pings a client whose connection has been silent for the keepalive time,
 * whether calls are open or not, and ends a connection whose client does not answer within the
 * timeout with the server's shutdownNow (GOAWAY, then close; the client's calls end UNAVAILABLE).
 * The timing is {@link KeepAlivePinger}'s, as for the client. The client's acknowledgements of
 * these PINGs are not PINGs of its own: they never reach {@link KeepAliveEnforcer}, which judges
 * only the PINGs the client sends.
 *
 * <p>Static only: a connection holds the {@link KeepAlivePinger} it starts (or null), not an object
 * of this class as well, and is itself the pinger's {@link KeepAlivePinger.Connection}. The pinger
 * is the event loop's only.
 */
final class ServerKeepAlive {
  private static final Logger logger = Logger.getLogger(ServerKeepAlive.class.getName());

  private ServerKeepAlive() {}

  /**
   * The connection is ready: starts pinging, unless the options disable keepalive.
   *
   * @param connection the server's connection (its handler), which writes the PINGs and, when the
   *     client does not answer, fails its calls with {@link #timedOut}'s status and closes
   * @return the pinger, to hear of every read ({@link KeepAlivePinger#onRead}) and to stop when the
   *     connection is gone; null if the options disable keepalive
   */
  static KeepAlivePinger start(
      ChannelHandlerContext ctx, KeepAlivePinger.Connection connection, ServerOptions options) {
    if (options.keepAliveTimeNanos() == Long.MAX_VALUE) {
      return null;
    }
    KeepAlivePinger pinger =
        new KeepAlivePinger(
            ctx, connection, options.keepAliveTimeNanos(), options.keepAliveTimeoutNanos(), true);
    pinger.start();
    return pinger;
  }

  /** The status of the calls of a connection whose client did not answer a keepalive PING. */
  static Status timedOut(ChannelHandlerContext ctx, ServerOptions options) {
    String problem =
        "Keepalive failed: the client did not answer a PING within "
            + TimeUnit.NANOSECONDS.toMillis(options.keepAliveTimeoutNanos())
            + " ms; the connection is likely gone";
    logger.log(Level.FINE, "{0}: {1}", new Object[] {ctx.channel(), problem});
    return Status.UNAVAILABLE.withDescription(problem);
  }
}
