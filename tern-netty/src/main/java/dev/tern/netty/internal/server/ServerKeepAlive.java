package dev.tern.netty.internal.server;

import dev.tern.Status;
import dev.tern.netty.internal.io.KeepAlivePinger;
import dev.tern.netty.internal.io.SocketNode;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
 * of this class as well. The pinger is the event loop's only.
 */
final class ServerKeepAlive {
  private static final Logger logger = Logger.getLogger(ServerKeepAlive.class.getName());

  private ServerKeepAlive() {}

  /**
   * The connection is ready: starts pinging, unless the options disable keepalive. {@code
   * shutdownNow} fails the server's calls with its status and closes the connection.
   *
   * @return the pinger, to hear of every read ({@link KeepAlivePinger#onRead}) and to stop when the
   *     connection is gone; null if the options disable keepalive
   */
  static KeepAlivePinger start(
      ChannelHandlerContext ctx,
      Runnable writePing,
      ServerOptions options,
      SocketNode socketNode,
      Consumer<Status> shutdownNow) {
    if (options.keepAliveTimeNanos() == Long.MAX_VALUE) {
      return null;
    }
    long timeoutMillis = TimeUnit.NANOSECONDS.toMillis(options.keepAliveTimeoutNanos());
    KeepAlivePinger pinger =
        new KeepAlivePinger(
            ctx,
            writePing,
            options.keepAliveTimeNanos(),
            options.keepAliveTimeoutNanos(),
            true,
            () -> true,
            socketNode::keepAliveSent,
            () -> {
              String problem =
                  "Keepalive failed: the client did not answer a PING within "
                      + timeoutMillis
                      + " ms; the connection is likely gone";
              logger.log(Level.FINE, "{0}: {1}", new Object[] {ctx.channel(), problem});
              shutdownNow.accept(Status.UNAVAILABLE.withDescription(problem));
            });
    pinger.start();
    return pinger;
  }
}
