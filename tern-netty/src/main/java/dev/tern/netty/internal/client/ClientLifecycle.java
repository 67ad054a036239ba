package dev.tern.netty.internal.client;

import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.Status;
import dev.tern.netty.internal.grpc.GrpcWire;
import dev.tern.netty.internal.http2.Http2FrameException;
import dev.tern.netty.internal.io.KeepAlivePinger;
import dev.tern.netty.internal.io.NetworkFailures;
import dev.tern.netty.internal.io.TlsAttributes;
import dev.tern.spi.ClientTransport.PingCallback;
import dev.tern.spi.ManagedClientTransport;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * What a client connection tells its transport's listener: ready, shutdown (once), in use while
 * streams are active, terminated (once); the status that calls still open end with when the
 * connection goes away; and how GOAWAY, TLS handshakes, network failures and keepalive turn into
 * that status.
 *
 * <p>Event loop only: one per connection, used by its handler on the channel's event loop.
 */
final class ClientLifecycle {
  private final NettyClientTransport transport;
  private final ManagedClientTransport.Listener listener;
  private final NettyClientTransport.TransportOptions options;
  private final PingTracker pings;

  private boolean ready;
  private boolean shutdownNotified;
  private boolean terminated;

  /** No new streams; close the channel once the last one is gone. */
  boolean closing;

  private int activeStreams;

  /** Why the connection is going away: what streams still open when it closes end with. */
  Status goingAwayStatus;

  /** Whether the server said too_many_pings on this connection (the channel's time doubled). */
  private boolean toldTooManyPings;

  private KeepAlivePinger keepAlive;

  ClientLifecycle(
      NettyClientTransport transport,
      ManagedClientTransport.Listener listener,
      NettyClientTransport.TransportOptions options,
      PingTracker pings) {
    this.transport = transport;
    this.listener = listener;
    this.options = options;
    this.pings = pings;
  }

  boolean isReady() {
    return ready;
  }

  boolean isTerminated() {
    return terminated;
  }

  boolean hasActiveStreams() {
    return activeStreams > 0;
  }

  /**
   * The server's first SETTINGS arrived: the transport is ready, and keepalive starts ({@code
   * writePing} writes a PING of {@link KeepAlivePinger#PAYLOAD} for the next flush).
   */
  void ready(ChannelHandlerContext ctx, Runnable writePing) {
    if (ready) {
      return;
    }
    ready = true;
    transport.onReady(ctx.channel());
    startKeepAlive(ctx, writePing);
    listener.transportReady();
  }

  /** Fails {@code callback} if the connection cannot ping now; returns whether it did. */
  boolean refusePing(PingCallback callback, Executor executor) {
    if (closing || terminated || !ready) {
      PingTracker.fail(
          callback,
          executor,
          Status.UNAVAILABLE.withDescription(
              ready ? "transport is shut down" : "transport is not ready"));
      return true;
    }
    return false;
  }

  /**
   * The transport asked for a shutdown: no new streams; calls still open end with {@code status}.
   */
  void shutdownRequested(Status status) {
    notifyShutdown(status);
    closing = true;
    if (goingAwayStatus == null) {
      goingAwayStatus = status;
    }
  }

  /** The status of a stream that cannot start now. */
  Status notStartedStatus() {
    return goingAwayStatus != null
        ? goingAwayStatus
        : Status.UNAVAILABLE.withDescription(
            closing ? "transport is shut down" : "transport is not ready");
  }

  /** The status calls end with once the connection is gone. */
  Status closedStatus() {
    if (goingAwayStatus == null) {
      goingAwayStatus = Status.UNAVAILABLE.withDescription("Connection closed");
    }
    return goingAwayStatus;
  }

  void streamStarted() {
    if (activeStreams++ == 0) {
      listener.transportInUse(true);
    }
  }

  /** A stream is done; returns true if it was the last one. */
  boolean streamDone() {
    if (--activeStreams == 0) {
      listener.transportInUse(false);
      return true;
    }
    return false;
  }

  /** The channel is gone; no stream is active any more. */
  void noStreams() {
    activeStreams = 0;
  }

  void notifyShutdown(Status status) {
    if (!shutdownNotified) {
      shutdownNotified = true;
      transport.markShutdown(status);
      listener.transportShutdown(status);
    }
  }

  void notifyTerminated() {
    if (!terminated) {
      notifyShutdown(Status.UNAVAILABLE.withDescription("Connection closed"));
      terminated = true;
      pings.failAll(Status.UNAVAILABLE.withDescription("Connection closed"));
      transport.socketNode().unregister();
      listener.transportTerminated();
    }
  }

  /** The connection attempt failed (or was abandoned). */
  void connectFailed(Throwable cause) {
    if (terminated) {
      return;
    }
    notifyShutdown(
        Status.UNAVAILABLE
            .withDescription(
                transport.address() instanceof HttpConnectProxiedSocketAddress proxied
                    ? "Failed to connect to the HTTP CONNECT proxy "
                        + proxied.getProxyAddress()
                        + " (for "
                        + HttpConnectTunnel.authority(proxied.getTargetAddress())
                        + "): "
                        + cause.getMessage()
                    : "Failed to connect to " + transport.address())
            .withCause(cause));
    notifyTerminated();
  }

  /**
   * The server sent GOAWAY: no new streams; a too_many_pings answer doubles the channel's keepalive
   * time (gRFC A8), once per connection.
   */
  void goAwayReceived(long errorCode, String debug) {
    if (errorCode == Http2FrameException.ENHANCE_YOUR_CALM
        && "too_many_pings".equals(debug)
        && !toldTooManyPings) {
      // Once per connection: a server may repeat itself for pings already on their way.
      toldTooManyPings = true;
      options.keepAliveTooManyPings();
    }
    Status status =
        Status.UNAVAILABLE.withDescription(
            "GOAWAY received: "
                + GrpcWire.errorName(errorCode)
                + (debug.isEmpty() ? "" : ", debug data: " + debug));
    if (goingAwayStatus == null) {
      goingAwayStatus = status;
    }
    notifyShutdown(status);
    closing = true;
  }

  /**
   * The channel closed: the status calls end with is settled (a server that never answered a
   * plaintext connection's preface likely expects TLS), keepalive stops, and the runtime stops
   * choosing this transport before any call learns that it failed, so a caller reacting to the
   * failure (a retry, a wait-for-ready call) gets a new one.
   */
  Status channelClosed(ChannelHandlerContext ctx) {
    if (goingAwayStatus == null) {
      goingAwayStatus =
          Status.UNAVAILABLE.withDescription(
              !ready && ctx.pipeline().get(SslHandler.class) == null
                  ? TlsFailures.SERVER_EXPECTS_TLS
                  : "Connection closed");
    }
    closing = true;
    if (keepAlive != null) {
      keepAlive.stop();
    }
    notifyShutdown(goingAwayStatus);
    return goingAwayStatus;
  }

  /** Anything read proves the server alive. */
  void onRead() {
    if (keepAlive != null) {
      keepAlive.onRead();
    }
  }

  /**
   * A TLS handshake ended: a failure, or a server that did not agree on h2 by ALPN, becomes the
   * connection's status (the latter closes the channel).
   */
  void tlsEvent(ChannelHandlerContext ctx, Object evt) {
    if (!(evt instanceof SslHandshakeCompletionEvent handshake)) {
      return;
    }
    if (!handshake.isSuccess()) {
      goingAwayStatus =
          Status.UNAVAILABLE
              .withDescription(TlsFailures.describe(ctx.channel(), handshake.cause()))
              .withCause(handshake.cause());
    } else {
      String problem = TlsAttributes.alpnProblem(ctx.channel());
      if (problem != null) {
        goingAwayStatus = Status.UNAVAILABLE.withDescription(problem);
        ctx.close();
      }
    }
  }

  /** An I/O or TLS failure closes the connection: it becomes the calls' status. */
  void networkFailure(ChannelHandlerContext ctx, IOException failure) {
    if (goingAwayStatus == null) {
      goingAwayStatus =
          failure instanceof SSLException
              ? Status.UNAVAILABLE
                  .withDescription(TlsFailures.describe(ctx.channel(), failure))
                  .withCause(failure)
              : NetworkFailures.status(failure);
    }
  }

  private void startKeepAlive(ChannelHandlerContext ctx, Runnable writePing) {
    long keepAliveTimeNanos = options.keepAliveTimeNanos();
    if (keepAliveTimeNanos == Long.MAX_VALUE) {
      return;
    }
    keepAlive =
        new KeepAlivePinger(
            ctx,
            new KeepAliveConnection(ctx, writePing),
            keepAliveTimeNanos,
            options.keepAliveTimeoutNanos(),
            options.keepAliveWithoutCalls());
    keepAlive.start();
  }

  /** This connection as its keepalive pinger sees it. Event loop only. */
  private final class KeepAliveConnection implements KeepAlivePinger.Connection {
    private final ChannelHandlerContext ctx;
    private final Runnable writePing;

    KeepAliveConnection(ChannelHandlerContext ctx, Runnable writePing) {
      this.ctx = ctx;
      this.writePing = writePing;
    }

    @Override
    public void writeKeepAlivePing() {
      writePing.run();
    }

    @Override
    public boolean hasOpenCalls() {
      return hasActiveStreams();
    }

    @Override
    public void keepAlivePingSent() {
      transport.socketNode().keepAliveSent();
    }

    @Override
    public void keepAliveTimedOut() {
      goingAwayStatus =
          Status.UNAVAILABLE.withDescription(
              "Keepalive failed: no answer to a PING within "
                  + TimeUnit.NANOSECONDS.toMillis(options.keepAliveTimeoutNanos())
                  + " ms; the connection is likely gone");
      ctx.close();
    }
  }
}
